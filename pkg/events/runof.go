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
	if attempt < 1 {
		attempt = 1
	}
	data := VerdictData{
		Run:       RunOf(from),
		Status:    StatusFailed,
		Phase:     service,
		Reason:    reason,
		Attempts:  attempt,
		Integrity: IntegrityRed,
	}
	env, err := New(runID, KindFailed, attempt, source, now(), data)
	if err != nil {
		return Envelope{}, err
	}
	env.TraceParent = from.TraceParent
	return env, nil
}
