package audit

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"

	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/rao"
)

// Simulated is the re-evaluation of one RaoEvent under today's policy.
type Simulated struct {
	// Available is false when the event holds no tool calls to evaluate.
	Available bool `json:"available"`
	// Reason says why simulation is unavailable.
	Reason string `json:"reason,omitempty"`
	// Calls has one entry per tool call the event recorded.
	Calls []SimulatedCall `json:"calls,omitempty"`
	// Changed reports whether any call's decision would differ.
	Changed bool `json:"changed"`
	// PolicyHash and Evaluator identify what simulated.
	PolicyHash string `json:"policy_hash"`
	Evaluator  string `json:"evaluator"`
}

// SimulatedCall is one tool call: recorded versus simulated decision.
type SimulatedCall struct {
	Path string `json:"path"`
	Tool string `json:"tool"`
	policy.Simulation
}

var toolCallPath = regexp.MustCompile(`^/attempts/(\d+)/tool_calls/(\d+)$`)

// Simulate re-evaluates today's policy over the tool calls that event ev
// added to the run's state (stateAfter is the state after ev). It is a pure
// function: it executes nothing and writes nothing. Same event, same
// policy, same evaluator version → same result.
func Simulate(p *policy.Policy, ev rao.Event, stateAfter []byte) Simulated {
	out := Simulated{PolicyHash: p.Hash(), Evaluator: policy.EvaluatorVersion}
	var paths []string
	for _, op := range ev.Delta {
		if (op.Op == "add" || op.Op == "replace") && toolCallPath.MatchString(op.Path) {
			paths = append(paths, op.Path)
		}
	}
	if len(paths) == 0 {
		out.Reason = "missing tool calls: this " + string(ev.Kind) + " event records no gated tool call"
		if ev.Checkpoint && ev.Kind == rao.KindAudit {
			out.Reason = "missing targets: checkpoint without a tool-call delta"
		}
		return out
	}
	var st struct {
		Attempts []struct {
			ToolCalls []struct {
				Tool string          `json:"tool"`
				Call json.RawMessage `json:"call"`
				Gate policy.Decision `json:"gate"`
			} `json:"tool_calls"`
		} `json:"attempts"`
	}
	if err := json.Unmarshal(stateAfter, &st); err != nil {
		out.Reason = "missing metadata: state is unreadable: " + err.Error()
		return out
	}
	sort.Strings(paths)
	var recorded []policy.Recorded
	for _, path := range paths {
		m := toolCallPath.FindStringSubmatch(path)
		a, _ := strconv.Atoi(m[1])
		j, _ := strconv.Atoi(m[2])
		if a >= len(st.Attempts) || j >= len(st.Attempts[a].ToolCalls) {
			out.Reason = fmt.Sprintf("missing targets: %s is not in the replayed state", path)
			return out
		}
		tc := st.Attempts[a].ToolCalls[j]
		var call policy.ToolCall
		if len(tc.Call) == 0 || json.Unmarshal(tc.Call, &call) != nil || call.Tool == "" {
			out.Reason = fmt.Sprintf("missing tool calls: %s has no gate input", path)
			return out
		}
		recorded = append(recorded, policy.Recorded{Call: call, Decision: tc.Gate})
		out.Calls = append(out.Calls, SimulatedCall{Path: path, Tool: call.Tool})
	}
	for i, s := range policy.Simulate(p, recorded) {
		out.Calls[i].Simulation = s
		if !s.Diff.Empty() {
			out.Changed = true
		}
	}
	out.Available = true
	return out
}
