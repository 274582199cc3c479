package critic

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
)

func TestGateWarningsSettleApprovedCallsOnly(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	need := func(path string) events.GateDecision {
		return events.GateDecision{Stage: events.GateStagePolicy, Warnings: []string{"requires approval: write to " + path, "other: " + path}}
	}
	tools := []events.ToolExecution{
		{Step: 1, Tool: "write_file", Gate: need("go.mod"), Result: events.ToolResult{OK: true},
			Approval: &events.ToolApproval{Call: "a1-s1-c1", Decision: events.DecisionApprove, By: "alice", At: at, Note: "ok"}},
		{Step: 1, Tool: "write_file", Gate: need("go.sum"), Result: events.ToolResult{OK: true},
			Approval: &events.ToolApproval{Call: "a1-s1-c3", Decision: events.DecisionApprove, By: "bob", At: at, Edited: true}},
		{Step: 2, Tool: "write_file", Gate: need("LICENSE"), Result: events.ToolResult{OK: false, Error: "rejected by carol: no"},
			Approval: &events.ToolApproval{Call: "a1-s2-c1", Decision: events.DecisionReject, By: "carol", At: at, Note: "no"}},
		// Approved, but the edited arguments failed: nothing was written
		// under the approval, so its warning stays.
		{Step: 3, Tool: "write_file", Gate: need("Makefile"), Result: events.ToolResult{OK: false, Error: "blocked"},
			Approval: &events.ToolApproval{Call: "a1-s3-c1", Decision: events.DecisionApprove, By: "dan", At: at, Edited: true}},
		{Step: 4, Tool: "run_command", Gate: events.GateDecision{Stage: events.GateStagePolicy, Blocked: true, Reasons: []string{"denied"}}},
		{Step: 5, Tool: "write_file", Gate: need("README.md"), Result: events.ToolResult{OK: true}},
	}
	warnings, approvals, approved := gateWarnings(tools)
	all := strings.Join(warnings, "\n")
	for _, gone := range []string{"step 1: write_file: requires approval: write to go.mod", "step 1: write_file: requires approval: write to go.sum"} {
		if strings.Contains(all, gone) {
			t.Errorf("approved call still warns %q:\n%s", gone, all)
		}
	}
	for _, want := range []string{"step 1: write_file: other: go.mod", "step 2: write_file: requires approval: write to LICENSE",
		"step 2: write_file: rejected by carol: no", "step 3: write_file: requires approval: write to Makefile",
		"step 4: run_command blocked: denied", "step 5: write_file: requires approval: write to README.md"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if len(approvals) != 4 || approvals[0].By != "alice" || approvals[0].Step != 1 || approvals[0].Tool != "write_file" ||
		!approvals[1].Edited || approvals[2].Decision != events.DecisionReject || approvals[3].By != "dan" {
		t.Errorf("approvals: %+v", approvals)
	}
	if !slices.Equal(approved, []string{"requires approval: write to go.mod", "requires approval: write to go.sum"}) {
		t.Errorf("approved: %q", approved)
	}
	got := changeWarnings([]string{"requires approval: write to go.mod", "requires approval: write to LICENSE"}, approved)
	if !slices.Equal(got, []string{"change: requires approval: write to LICENSE"}) {
		t.Errorf("change warnings: %q", got)
	}
}
