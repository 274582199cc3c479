package critic

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codali-dev/codali/pkg/afs"
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
	if !heuristics(bd).ExtraChecks {
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

// heuristics are the build-mode behaviours the builder's recorded emotions
// call for: projected from the attempt's history entries when it has
// any (so they follow from what was recorded, not from a claim), else
// the record's own summary.
func heuristics(bd events.BuiltData) afs.Heuristics {
	if bd.Cognition == nil {
		return afs.Heuristics{}
	}
	if len(bd.Cognition.Entries) == 0 {
		return bd.Cognition.Heuristics
	}
	files, _ := afs.Project(afs.ProjectInput{Entries: bd.Cognition.Entries})
	return files.Emotions.Heuristics()
}

// FastPathSkip is the review's skipped text when the fast path applies.
const FastPathSkip = "fast path (cognitive protocol §3.1, build mode): a small change, every tool call succeeded without hazards or gate warnings, and the checks and the alignment passed"

// fastPath reports whether a passing attempt may skip the model review
// (protocol §3.1, build mode: high confidence lets the agent operate more
// autonomously). It applies only when it is safe: the recorded emotions
// show high confidence and low anxiety, the builder neither stopped early
// nor sought help, no tool call failed, matched a hazard or was blocked
// or warned about, the change gate warned about nothing, the alignment
// has no unmatched target, at least one check ran, and the change has at
// most maxLines added plus removed lines, all of them text (see
// unmeasured). Confidence grows with successful calls of any kind, so a
// model can raise it with harmless reads: the size bound keeps a large
// change from going unreviewed that way.
func fastPath(bd events.BuiltData, j judgement, maxLines int) bool {
	if bd.Change.Added+bd.Change.Removed > maxLines || unmeasured(j.diff) {
		return false
	}
	if bd.Cognition == nil || !heuristics(bd).FastPath || bd.Cognition.Stopped != "" || bd.Cognition.HelpSeeking ||
		len(j.gateWarnings) > 0 || len(j.checks) == 0 || j.alignment == nil || len(j.alignment.UnmatchedTargets) > 0 {
		return false
	}
	for _, t := range bd.Tools {
		if t.Gate.Blocked || len(t.Gate.Warnings) > 0 || !t.Result.OK {
			return false
		}
	}
	for _, e := range bd.Cognition.Entries {
		if e.Operation.Type == afs.OpToolCall && !e.Operation.Success {
			return false
		}
		if e.Operation.Type == afs.OpCognitiveState {
			var in afs.CognitiveInput
			if json.Unmarshal(e.Operation.Input, &in) != nil || len(in.Hazards) > 0 {
				return false
			}
		}
	}
	return true
}

// unmeasured reports whether diff changes something its line counts do
// not measure: a binary file (git counts no lines for one, whatever its
// size), a file mode (making a file executable changes no line) or a
// symbolic link. Such a change is never small enough to skip the review.
func unmeasured(diff string) bool {
	for line := range strings.Lines(diff) {
		switch {
		case strings.HasPrefix(line, "GIT binary patch"), strings.HasPrefix(line, "Binary files "),
			strings.HasPrefix(line, "old mode "), strings.HasPrefix(line, "new mode "),
			strings.HasPrefix(line, "new file mode 120000"), strings.HasPrefix(line, "deleted file mode 120000"),
			strings.HasPrefix(line, "index ") && strings.HasSuffix(strings.TrimRight(line, "\n"), " 120000"):
			return true
		}
	}
	return false
}
