package critic

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
)

// gateWarnings turns the builder's gate decisions into verdict warnings
// and the human decisions its parked calls ran under. A call a human
// approved (as asked or edited) does not warn that it "requires approval":
// the decision, who took it, when, with which note and whether the
// arguments were edited, is in approvals instead, and so in the verdict
// and the history. Its other warnings, and every warning of a rejected or
// undecided call, stay. approved holds the approval warnings so settled,
// so that the finished change is not warned about them again.
func gateWarnings(tools []events.ToolExecution) (warnings []string, approvals []events.VerdictApproval, approved []string) {
	for _, t := range tools {
		if t.Gate.Stage == events.GateStageChange {
			continue // judged again by the critic, on the change as applied
		}
		if t.Gate.Blocked {
			warnings = append(warnings, fmt.Sprintf("step %d: %s blocked: %s", t.Step, t.Tool, strings.Join(t.Gate.Reasons, "; ")))
		}
		ok := t.Approval != nil && t.Approval.Decision == events.DecisionApprove && t.Result.OK
		if t.Approval != nil {
			approvals = append(approvals, events.VerdictApproval{Step: t.Step, Tool: t.Tool, ToolApproval: *t.Approval})
		}
		for _, w := range t.Gate.Warnings {
			if ok && strings.HasPrefix(w, policy.WarningRequiresApproval) {
				if !slices.Contains(approved, w) {
					approved = append(approved, w)
				}
				continue
			}
			warnings = append(warnings, fmt.Sprintf("step %d: %s: %s", t.Step, t.Tool, w))
		}
		if t.Approval != nil && t.Approval.Decision == events.DecisionReject {
			warnings = append(warnings, fmt.Sprintf("step %d: %s: rejected by %s: %s", t.Step, t.Tool, t.Approval.By, t.Approval.Note))
		}
	}
	return warnings, approvals, approved
}

// changeWarnings are the change gate's warnings on the finished change,
// less the approval warnings a human settled by approving the call that
// raised the same warning (the same write to the same path).
func changeWarnings(gate, approved []string) []string {
	var out []string
	for _, w := range gate {
		if slices.Contains(approved, w) {
			continue
		}
		out = append(out, "change: "+w)
	}
	return out
}
