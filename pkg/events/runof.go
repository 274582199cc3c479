package events

import "encoding/json"

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
	var carrier struct {
		Run Run `json:"run"`
	}
	_ = json.Unmarshal(e.Data, &carrier)
	return carrier.Run
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
