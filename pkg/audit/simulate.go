package audit

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

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
	// WouldPark is set when today's policy requires approval for the
	// call: the builder would park the run on it.
	WouldPark bool `json:"would_park"`
}

var (
	toolCallPath = regexp.MustCompile(`^/attempts/(\d+)/tool_calls/(\d+)$`)
	// ancestorPath matches paths above a tool call: the root, the attempts
	// list, one attempt, or one attempt's tool_calls list. An event whose
	// delta adds such a subtree (for instance the first tool call of an
	// attempt recorded before its plan) adds every call inside it.
	ancestorPath = regexp.MustCompile(`^(/attempts(/(\d+)(/tool_calls)?)?)?$`)
)

// Simulate re-evaluates today's policy over the tool calls that event ev
// added to the run's state (stateAfter is the state after ev). It is a pure
// function: it executes nothing and writes nothing. Same event, same
// policy, same evaluator version → same result.
func Simulate(p *policy.Policy, ev rao.Event, stateAfter []byte) Simulated {
	out := Simulated{PolicyHash: p.Hash(), Evaluator: policy.EvaluatorVersion}
	var paths, ancestors []string
	for _, op := range ev.Delta {
		if op.Op != "add" && op.Op != "replace" {
			continue
		}
		switch {
		case toolCallPath.MatchString(op.Path):
			paths = append(paths, op.Path)
		case ancestorPath.MatchString(op.Path):
			ancestors = append(ancestors, op.Path)
		}
	}
	if len(ancestors) > 0 {
		paths = append(paths, callsUnder(stateAfter, ancestors)...)
	}
	paths = dedupe(paths)
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
				Gate struct {
					policy.Decision
					// Stage is events.GateDecision.Stage: calls refused
					// before the policy gate are not policy decisions.
					Stage string `json:"stage"`
				} `json:"gate"`
			} `json:"tool_calls"`
		} `json:"attempts"`
	}
	if err := json.Unmarshal(stateAfter, &st); err != nil {
		out.Reason = "missing metadata: state is unreadable: " + err.Error()
		return out
	}
	var recorded []policy.Recorded
	var skipped []string
	for _, path := range paths {
		m := toolCallPath.FindStringSubmatch(path)
		a, _ := strconv.Atoi(m[1])
		j, _ := strconv.Atoi(m[2])
		if a >= len(st.Attempts) || j >= len(st.Attempts[a].ToolCalls) {
			out.Reason = fmt.Sprintf("missing targets: %s is not in the replayed state", path)
			return out
		}
		tc := st.Attempts[a].ToolCalls[j]
		if tc.Gate.Stage == "workspace" || tc.Gate.Stage == "arguments" {
			skipped = append(skipped, fmt.Sprintf("%s (refused before the policy gate: %s)", path, tc.Gate.Stage))
			continue
		}
		var call policy.ToolCall
		if len(tc.Call) == 0 || json.Unmarshal(tc.Call, &call) != nil || call.Tool == "" {
			out.Reason = fmt.Sprintf("missing tool calls: %s has no gate input", path)
			return out
		}
		recorded = append(recorded, policy.Recorded{Call: call, Decision: tc.Gate.Decision})
		out.Calls = append(out.Calls, SimulatedCall{Path: path, Tool: call.Tool})
	}
	if len(recorded) == 0 {
		out.Reason = "missing tool calls: " + strings.Join(skipped, "; ")
		return out
	}
	for i, s := range policy.Simulate(p, recorded) {
		out.Calls[i].Simulation = s
		out.Calls[i].WouldPark = s.Unavailable == "" && s.Simulated.RequiresApproval()
		if !s.Diff.Empty() {
			out.Changed = true
		}
	}
	out.Available = true
	return out
}

// callsUnder lists the tool-call paths inside the given ancestor paths of
// state. An unreadable state lists none (the caller reports it).
func callsUnder(state []byte, ancestors []string) []string {
	var st struct {
		Attempts []struct {
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"attempts"`
	}
	if json.Unmarshal(state, &st) != nil {
		return nil
	}
	var out []string
	for _, a := range ancestors {
		m := ancestorPath.FindStringSubmatch(a)
		for i, att := range st.Attempts {
			if m[3] != "" && m[3] != strconv.Itoa(i) {
				continue
			}
			for j := range att.ToolCalls {
				out = append(out, fmt.Sprintf("/attempts/%d/tool_calls/%d", i, j))
			}
		}
	}
	return out
}

// dedupe sorts paths by attempt then call index and removes repeats.
func dedupe(paths []string) []string {
	key := func(p string) (int, int) {
		m := toolCallPath.FindStringSubmatch(p)
		a, _ := strconv.Atoi(m[1])
		j, _ := strconv.Atoi(m[2])
		return a, j
	}
	sort.Slice(paths, func(x, y int) bool {
		ax, jx := key(paths[x])
		ay, jy := key(paths[y])
		if ax != ay {
			return ax < ay
		}
		return jx < jy
	})
	out := paths[:0]
	for i, p := range paths {
		if i == 0 || p != paths[i-1] {
			out = append(out, p)
		}
	}
	return out
}
