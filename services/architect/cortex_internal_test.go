package architect

import (
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
)

func TestCortexMessageCarriesTheInputIR(t *testing.T) {
	st := cognition.NewState()
	st.GoalTree.UserPartition.Children = []cognition.GoalNode{{NodeID: "ship", Summary: "Ship the MVP", Weight: 40, Children: []cognition.GoalNode{}}}
	st.L1Memory.Entries = []string{"run go vet"}
	inp := input{run: events.Run{Request: events.Requested{Request: "Make Greet greet"}},
		retry: &events.RetryData{Reason: "go test exited 1"}}
	msg := cortexMessage(inp, st).Content
	for _, want := range []string{"<input-ir>", "<senses>\nrequest: Make Greet greet\nprevious attempt failed: go test exited 1\n</senses>",
		"<act-descriptor-catalog>\n- flag_risk", "## root partition", cognition.RootGoalContinuity, `"node_id": "ship"`,
		"<l1-memory>\n[\n  \"run go vet\"\n]\n</l1-memory>", `"output_ir"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("input IR message lacks %q:\n%s", want, msg)
		}
	}
}

func TestCortexOutput(t *testing.T) {
	good := `<output-ir><acts>[{"act":"flag_risk","args":{"risk":"empty names"}},{"act":"deploy","args":{}}]</acts>` +
		`<goal-tree-patch>[{"op":"sprout","parent_node_id":"user-root","node_id":"docs","summary":"Document Greet","weight":5}]</goal-tree-patch>` +
		`<l1-memory-patch>[{"op":"append","value":"Greet needs a default"}]</l1-memory-patch></output-ir>`
	cases := []struct {
		name          string
		answer        string
		found         bool
		goals, mem    int
		acts          []string
		diagsContains []string
	}{
		{"in the JSON field", `{"summary":"s","output_ir":` + quoteJSON(good) + `}`, true, 1, 1, []string{ActFlagRisk}, []string{"acts[1] deploy: not in the act catalog"}},
		{"as a text block", `{"summary":"s"}` + "\n" + good, true, 1, 1, []string{ActFlagRisk}, nil},
		{"absent", `{"summary":"s"}`, false, 0, 0, nil, []string{"no output IR"}},
		{"missing section: contract failure, nothing applied", `{"output_ir":"<output-ir><acts>[]</acts><goal-tree-patch>[]</goal-tree-patch></output-ir>"}`, true, 0, 0, nil, []string{"output IR rejected, nothing applied"}},
		{"broken section: that section only", `{"output_ir":` + quoteJSON(strings.Replace(good, `"op":"append"`, `"op":"shout"`, 1)) + `}`, true, 1, 0, []string{ActFlagRisk}, []string{"l1-memory-patch: invalid-helper-output"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, rep := cortexOutput(tc.answer)
			plan := events.Plan{}
			applyActs(out, &plan, rep, nil)
			if rep.Found != tc.found || rep.GoalOps != tc.goals || rep.MemoryOps != tc.mem || strings.Join(rep.Acts, ",") != strings.Join(tc.acts, ",") {
				t.Errorf("report %+v", rep)
			}
			all := strings.Join(rep.Diagnostics, "\n")
			for _, want := range tc.diagsContains {
				if !strings.Contains(all, want) {
					t.Errorf("diagnostics lack %q:\n%s", want, all)
				}
			}
			if len(tc.acts) > 0 && (len(plan.Risks) != 1 || plan.Risks[0] != "empty names") {
				t.Errorf("flag_risk not applied: %+v", plan.Risks)
			}
		})
	}
}

func quoteJSON(s string) string {
	b := strings.Builder{}
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
