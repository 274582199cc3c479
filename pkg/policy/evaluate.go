package policy

import (
	"fmt"
	"slices"
)

// EvaluatorVersion identifies the evaluation semantics. It is recorded
// with every decision and bumped whenever Evaluate would decide any call
// differently under the same policy.
const EvaluatorVersion = "policy-eval/2"

// ToolCall is what the gate sees of one tool execution.
type ToolCall struct {
	// Tool names the tool, e.g. read_file, write_file, edit_file,
	// delete_file, list_dir, run_command.
	Tool string `json:"tool"`
	// Paths lists the workspace-relative, slash-separated paths the call
	// reads or writes.
	Paths []string `json:"paths,omitempty"`
	// Command is the argv of a run_command call.
	Command []string `json:"command,omitempty"`
	// Writes is set when the call modifies files.
	Writes bool `json:"writes,omitempty"`
	// Deletes is set when the call removes files.
	Deletes bool `json:"deletes,omitempty"`
	// ChangedLines counts the lines this call adds plus removes.
	ChangedLines int `json:"changed_lines,omitempty"`
	// TotalChangedLines is the attempt's cumulative count, including this
	// call.
	TotalChangedLines int `json:"total_changed_lines,omitempty"`
}

// Decision is the gate's verdict on one call.
type Decision struct {
	// Blocked is set when the call must not run.
	Blocked bool `json:"blocked"`
	// Reasons says why the call is blocked; sorted, without duplicates.
	Reasons []string `json:"reasons,omitempty"`
	// Warnings lists concerns that do not block, such as "requires
	// approval: write to go.mod"; sorted, without duplicates.
	Warnings []string `json:"warnings,omitempty"`
}

// Evaluate decides whether call may run under p. It is pure and
// deterministic, never modifies p or call, and is safe for concurrent use.
// It collects every reason and warning rather than stopping at the first.
//
// Evaluate fails closed: a nil policy, a policy that does not pass
// [Policy.Validate], or a malformed call produce a blocked decision. The
// precedence of the rules is described in docs/policy.md: blocks
// (workspace escape, never_touch, destructive guard in block mode, command
// allowlist, max_changed_lines) can never be lifted by always_allow, which
// only suppresses approval warnings.
func (p *Policy) Evaluate(call ToolCall) Decision {
	var e evaluation
	switch {
	case p == nil:
		e.block(ReasonNoPolicy)
		return e.decision()
	case p.Validate() != nil:
		e.block(ReasonInvalidPolicy)
		return e.decision()
	}
	if call.Tool == "" {
		e.block(ReasonInvalidCall + ": no tool name")
	}
	if call.ChangedLines < 0 || call.TotalChangedLines < 0 {
		e.block(ReasonInvalidCall + ": negative changed lines")
	}
	cleaned := p.checkPaths(call.Paths, &e)
	for _, op := range destructiveOps(call) {
		switch p.Destructive.effective() {
		case DestructiveBlock:
			e.block(ReasonDestructive + ": " + op)
		case DestructiveWarn:
			e.warn(ReasonDestructive + ": " + op)
		}
	}
	if call.Tool == ToolRunCommand {
		p.checkCommand(call.Command, &e)
	}
	// The total includes this call; a caller that filled in only
	// ChangedLines is still held to the limit.
	if total := max(call.TotalChangedLines, call.ChangedLines); p.MaxChangedLines > 0 && total > p.MaxChangedLines {
		e.block(fmt.Sprintf("%s: %d > %d", ReasonMaxChangedLines, total, p.MaxChangedLines))
	}
	p.checkApprovals(call, cleaned, &e)
	return e.decision()
}

// checkPaths blocks escaping, invalid and never_touch paths and returns
// the cleaned paths that remain (in the form matchGlob expects).
func (p *Policy) checkPaths(paths []string, e *evaluation) []string {
	cleaned := make([]string, 0, len(paths))
	for _, raw := range paths {
		c, problem := cleanPath(raw)
		switch problem {
		case pathEscapes:
			e.block(fmt.Sprintf("%s: %s", ReasonPathEscapes, clipReason(raw)))
			continue
		case pathInvalid:
			e.block(ReasonInvalidCall + ": empty path or path containing NUL")
			continue
		}
		c = cleanForMatch(c)
		if inGitDir(c) {
			e.block(fmt.Sprintf("%s: %s", ReasonGitMetadata, clipReason(displayPath(c))))
		}
		for _, g := range p.NeverTouch {
			if matchesFolded(g, c) {
				e.block(fmt.Sprintf("%s: %s matches %s", ReasonNeverTouch, clipReason(displayPath(c)), g))
			}
		}
		cleaned = append(cleaned, c)
	}
	return cleaned
}

// checkApprovals adds the require_approval_for warnings that always_allow
// does not suppress. Tool rules apply to every call of the tool; path
// rules apply to paths the call writes or deletes.
func (p *Policy) checkApprovals(call ToolCall, paths []string, e *evaluation) {
	if slices.Contains(p.AlwaysAllow.Tools, call.Tool) {
		return
	}
	if slices.Contains(p.RequireApprovalFor.Tools, call.Tool) {
		e.warn(fmt.Sprintf("%s: tool %s", WarningRequiresApproval, call.Tool))
	}
	verb := ""
	switch {
	case call.Deletes || call.Tool == ToolDeleteFile:
		verb = "delete of"
	case call.Writes || call.Tool == ToolWriteFile || call.Tool == ToolEditFile:
		verb = "write to"
	default:
		return
	}
	for _, c := range paths {
		needs := slices.ContainsFunc(p.RequireApprovalFor.Paths, func(g string) bool { return matchesFolded(g, c) })
		if !needs || anyGlobMatches(p.AlwaysAllow.Paths, c) {
			continue
		}
		e.warn(fmt.Sprintf("%s: %s %s", WarningRequiresApproval, verb, clipReason(displayPath(c))))
	}
}

func anyGlobMatches(globs []string, name string) bool {
	return slices.ContainsFunc(globs, func(g string) bool { return matchGlob(g, name) })
}

// displayPath shows the root as ".".
func displayPath(c string) string {
	if c == "" {
		return "."
	}
	return c
}

// evaluation accumulates one call's reasons and warnings.
type evaluation struct {
	reasons, warnings []string
}

func (e *evaluation) block(reason string) { e.reasons = append(e.reasons, reason) }
func (e *evaluation) warn(warning string) { e.warnings = append(e.warnings, warning) }

// decision returns the sorted, de-duplicated verdict.
func (e *evaluation) decision() Decision {
	return Decision{
		Blocked:  len(e.reasons) > 0,
		Reasons:  sortedSet(e.reasons),
		Warnings: sortedSet(e.warnings),
	}
}

// sortedSet sorts s in place and removes duplicates; nil stays nil.
func sortedSet(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	slices.Sort(s)
	return slices.Compact(s)
}
