package architect

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
)

// Every act of the catalog the model is shown is carried out; acts
// outside it, with bad arguments, or that the policy gate would not run,
// change nothing and are diagnostics.
func TestActCatalog(t *testing.T) {
	gate := policy.Default().Evaluate
	base := func() events.Plan {
		return events.Plan{Summary: "s", Steps: []events.PlanStep{{ID: "1", Description: "d"}},
			Verify: []events.VerifyCommand{{Name: "test", Command: []string{"go", "test", "./..."}}}}
	}
	cases := []struct {
		name, act, args string
		diag            string
		check           func(events.Plan) bool
	}{
		{"flag_risk", ActFlagRisk, `{"risk":"empty names"}`, "", func(p events.Plan) bool { return len(p.Risks) == 1 && p.Risks[0] == "empty names" }},
		{"flag_risk empty", ActFlagRisk, `{"risk":"  "}`, `needs a non-empty "risk"`, nil},
		{"flag_risk unknown field", ActFlagRisk, `{"risk":"x","why":"y"}`, "unknown field", nil},
		{"flag_risk too long", ActFlagRisk, `{"risk":"` + strings.Repeat("x", maxActText+1) + `"}`, "longer than", nil},
		{"add_check", ActAddCheck, `{"name":"vet","command":["go","vet","./..."]}`, "", func(p events.Plan) bool {
			return len(p.Verify) == 2 && p.Verify[1].Name == "vet" && strings.Join(p.Verify[1].Command, " ") == "go vet ./..."
		}},
		{"add_check refused by the gate", ActAddCheck, `{"name":"x","command":["curl","http://example.com"]}`, "policy gate does not let the command run", nil},
		{"add_check already planned", ActAddCheck, `{"name":"t","command":["go","test","./..."]}`, "already runs", nil},
		{"add_check no command", ActAddCheck, `{"name":"t","command":[]}`, `"command" must be`, nil},
		{"add_step", ActAddStep, `{"description":"document Greet","files":["./docs/greet.md"]}`, "", func(p events.Plan) bool {
			return len(p.Steps) == 2 && p.Steps[1].ID == "cortex-2" && p.Steps[1].Files[0] == "docs/greet.md"
		}},
		{"add_step escaping path", ActAddStep, `{"description":"x","files":["../etc/passwd"]}`, "not inside the repository", nil},
		{"add_step git metadata", ActAddStep, `{"description":"x","files":[".GIT/config"]}`, "git metadata", nil},
		{"declare_create", ActDeclareCreate, `{"path":"greet_test.go"}`, "", func(p events.Plan) bool { return len(p.Creates) == 1 && p.Creates[0] == "greet_test.go" }},
		{"declare_create absolute", ActDeclareCreate, `{"path":"/tmp/x"}`, "not inside the repository", nil},
		{"declare_create wrong type", ActDeclareCreate, `{"path":7}`, "arguments", nil},
		{"unknown act", "deploy", `{}`, "deploy: not in the act catalog", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plan, rep := base(), &events.CortexReport{}
			applyActs(cognition.OutputIR{Acts: []cognition.ActDraft{{Act: tc.act, Args: json.RawMessage(tc.args)}}}, &plan, rep, gate)
			if tc.diag == "" {
				if len(rep.Diagnostics) != 0 || len(rep.Acts) != 1 || !tc.check(plan) {
					t.Errorf("act not carried out: report %+v plan %+v", rep, plan)
				}
				return
			}
			if len(rep.Acts) != 0 || len(rep.Diagnostics) != 1 || !strings.Contains(rep.Diagnostics[0], tc.diag) {
				t.Errorf("report %+v, want one diagnostic with %q", rep, tc.diag)
			}
			if b := base(); fmt.Sprint(plan) != fmt.Sprint(b) {
				t.Errorf("a refused act changed the plan: %+v", plan)
			}
		})
	}
	// The catalog shown is the catalog carried out.
	cat := actCatalog()
	for _, a := range acts {
		if !strings.Contains(cat, "- "+a.name+" ") {
			t.Errorf("catalog lacks %s:\n%s", a.name, cat)
		}
	}
	if n := strings.Count(cat, "\n- ") + 1; n != len(acts) || len(acts) < 4 {
		t.Errorf("catalog has %d entries, %d acts", n, len(acts))
	}
	// Past maxActs the rest are ignored, with a diagnostic.
	var many []cognition.ActDraft
	for i := 0; i < maxActs+2; i++ {
		many = append(many, cognition.ActDraft{Act: ActFlagRisk, Args: json.RawMessage(fmt.Sprintf(`{"risk":"r%d"}`, i))})
	}
	plan, rep := base(), &events.CortexReport{}
	applyActs(cognition.OutputIR{Acts: many}, &plan, rep, gate)
	if len(plan.Risks) != maxActs || len(rep.Diagnostics) != 1 || !strings.Contains(rep.Diagnostics[0], "more than") {
		t.Errorf("risks %d, diagnostics %v", len(plan.Risks), rep.Diagnostics)
	}
	// Without a gate no check is added.
	plan, rep = base(), &events.CortexReport{}
	applyActs(cognition.OutputIR{Acts: []cognition.ActDraft{{Act: ActAddCheck, Args: json.RawMessage(`{"name":"vet","command":["go","vet"]}`)}}}, &plan, rep, nil)
	if len(plan.Verify) != 1 || len(rep.Diagnostics) != 1 {
		t.Errorf("ungated check: verify %v diagnostics %v", plan.Verify, rep.Diagnostics)
	}
}
