package policy

import "slices"

// Recorded is one historical tool call with the decision recorded for it.
type Recorded struct {
	// Call is the tool call as recorded.
	Call ToolCall `json:"call"`
	// Decision is the decision recorded at the time.
	Decision Decision `json:"decision"`
}

// Simulation compares a recorded decision with today's.
type Simulation struct {
	// Recorded is the decision recorded at the time.
	Recorded Decision `json:"recorded"`
	// Simulated is what the current policy decides for the same call.
	Simulated Decision `json:"simulated"`
	// Diff lists what changed from Recorded to Simulated.
	Diff DecisionDiff `json:"diff"`
	// Unavailable, when set, says why the call could not be simulated
	// (for example "missing tool call"); Simulated and Diff are then
	// empty.
	Unavailable string `json:"unavailable,omitempty"`
}

// DecisionDiff is the difference between two decisions. Reasons and
// warnings are compared as sets.
type DecisionDiff struct {
	// WarningsAdded are in the simulated decision only; sorted.
	WarningsAdded []string `json:"warnings_added,omitempty"`
	// WarningsRemoved are in the recorded decision only; sorted.
	WarningsRemoved []string `json:"warnings_removed,omitempty"`
	// ReasonsAdded are in the simulated decision only; sorted.
	ReasonsAdded []string `json:"reasons_added,omitempty"`
	// ReasonsRemoved are in the recorded decision only; sorted.
	ReasonsRemoved []string `json:"reasons_removed,omitempty"`
	// BlockedFlipped is set when the two decisions differ in Blocked.
	BlockedFlipped bool `json:"blocked_flipped"`
}

// Empty reports whether the two decisions were equivalent.
func (d DecisionDiff) Empty() bool {
	return !d.BlockedFlipped && len(d.WarningsAdded) == 0 && len(d.WarningsRemoved) == 0 &&
		len(d.ReasonsAdded) == 0 && len(d.ReasonsRemoved) == 0
}

// UnavailableMissingToolCall is the Unavailable text for a recorded entry
// without a tool name.
const UnavailableMissingToolCall = "missing tool call"

// Simulate evaluates p against every recorded call and compares the result
// with the recorded decision, in order. It never executes anything,
// performs no I/O, does not modify its arguments and is deterministic for
// the same policy, input and [EvaluatorVersion]. A nil p simulates every
// call as blocked ([ReasonNoPolicy]). Entries whose call has no tool name
// are marked Unavailable instead of being evaluated.
func Simulate(p *Policy, recorded []Recorded) []Simulation {
	out := make([]Simulation, len(recorded))
	for i, r := range recorded {
		s := Simulation{Recorded: cloneDecision(r.Decision)}
		if r.Call.Tool == "" {
			s.Unavailable = UnavailableMissingToolCall
		} else {
			s.Simulated = p.Evaluate(r.Call)
			s.Diff = Compare(s.Recorded, s.Simulated)
		}
		out[i] = s
	}
	return out
}

// Compare returns what changed from the recorded decision to the simulated
// one.
func Compare(recorded, simulated Decision) DecisionDiff {
	return DecisionDiff{
		WarningsAdded:   minus(simulated.Warnings, recorded.Warnings),
		WarningsRemoved: minus(recorded.Warnings, simulated.Warnings),
		ReasonsAdded:    minus(simulated.Reasons, recorded.Reasons),
		ReasonsRemoved:  minus(recorded.Reasons, simulated.Reasons),
		BlockedFlipped:  recorded.Blocked != simulated.Blocked,
	}
}

// minus returns the sorted, de-duplicated elements of a not in b, or nil.
func minus(a, b []string) []string {
	var out []string
	for _, v := range a {
		if !slices.Contains(b, v) {
			out = append(out, v)
		}
	}
	return sortedSet(out)
}

func cloneDecision(d Decision) Decision {
	return Decision{Blocked: d.Blocked, Reasons: slices.Clone(d.Reasons), Warnings: slices.Clone(d.Warnings)}
}
