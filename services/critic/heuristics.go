package critic

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
)

// ExtraCheckPrefix names the checks the critic adds when the builder's
// emotions call for more verification.
const ExtraCheckPrefix = "extra: "

// extraChecks are the repository's additional checks, added when the
// builder ended its attempt with high anxiety (Cognitive Protocol §3.1,
// build mode: more thorough verification): `go vet ./...` for a Go
// module, when the policy allows it and the plan does not already run it.
func (s *Service) extraChecks(dir string, bd events.BuiltData, pol *policy.Policy) []events.VerifyCommand {
	if bd.Cognition == nil || !bd.Cognition.Heuristics.ExtraChecks {
		return nil
	}
	var out []events.VerifyCommand
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		vet := []string{"go", "vet", "./..."}
		planned := slices.ContainsFunc(bd.Plan.Verify, func(v events.VerifyCommand) bool { return slices.Equal(v.Command, vet) })
		if !planned && !pol.Evaluate(policy.ToolCall{Tool: policy.ToolRunCommand, Command: vet}).Blocked {
			out = append(out, events.VerifyCommand{Name: ExtraCheckPrefix + "go vet", Command: vet})
		}
	}
	return out
}
