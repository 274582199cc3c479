package events

import (
	"bytes"
	"encoding/json"
)

// RunOf extracts the run description from any run event, best effort: the
// `run` field of phase events, or the request itself for a `requested`
// event. It is used to end a run `failed` when its event cannot be handled,
// so it never fails; missing parts stay empty.
func RunOf(e Envelope) Run {
	if k, _ := e.Kind(); k == KindRequested {
		var req Requested
		if json.Unmarshal(e.Data, &req) == nil {
			return Run{Request: req}
		}
		return Run{}
	}
	if run, ok := runMember(e.Data); ok {
		return run
	}
	var carrier struct {
		Run Run `json:"run"`
	}
	_ = json.Unmarshal(e.Data, &carrier)
	return carrier.Run
}

// runMember decodes only the run member of data, which decoding the whole
// data into a struct with a run field gives too, without decoding the rest
// (a built event carries kilobytes beside its run). ok is false, and the
// whole data must be decoded, when data is valid JSON whose keys could
// match the run field in another way: encoding/json matches a field name
// case-insensitively, after unescaping, and decodes each matching member
// into the same field in turn.
func runMember(data []byte) (run Run, ok bool) {
	if !validJSON(data) {
		return Run{}, true // Unmarshal decodes nothing either
	}
	var value []byte
	matches := 0
	plain := true
	topMembers(data, func(key, v []byte) bool {
		switch {
		case !plainKey(key):
			plain = false
		case bytes.EqualFold(key, []byte("run")):
			matches++
			plain = plain && string(key) == "run"
			value = v
		}
		return plain
	})
	if !plain || matches > 1 {
		return Run{}, false
	}
	if matches == 1 {
		_ = json.Unmarshal(value, &run)
	}
	return run, true
}

// Failed builds the terminal `failed` event of a run that a service could
// not carry on with. from is the event that could not be handled (its
// attempt, trace context and run description are kept); it may be the zero
// Envelope when the message could not be decoded, in which case runID is used.
func Failed(from Envelope, runID, service, reason string, attempt int, source string, now Clock) (Envelope, error) {
	return FailedWith(from, runID, attempt, source, now, FailedVerdict(from, service, reason, attempt))
}

// FailedVerdict is the verdict of a run a service could not carry on with:
// status failed, integrity red, the run description of from.
func FailedVerdict(from Envelope, service, reason string, attempt int) VerdictData {
	run := RunOf(from)
	return VerdictData{
		Run:        run,
		UsageTotal: UsageTotalOf(run),
		Status:     StatusFailed,
		Phase:      service,
		Reason:     reason,
		Attempts:   max(attempt, 1),
		Integrity:  IntegrityRed,
	}
}

// FailedWith builds the `failed` event carrying data, keeping from's trace
// context.
func FailedWith(from Envelope, runID string, attempt int, source string, now Clock, data VerdictData) (Envelope, error) {
	env, err := New(runID, KindFailed, max(attempt, 1), source, now(), data)
	if err != nil {
		return Envelope{}, err
	}
	env.TraceParent = from.TraceParent
	return env, nil
}
