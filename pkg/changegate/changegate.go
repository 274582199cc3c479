// Package changegate holds a finished change to the policy: every path the
// change adds, modifies or deletes is evaluated as a write or a delete,
// together with the change's line count, whatever made the change (the
// model's tools or a command it ran). The builder records the decisions
// after its tool loop and the critic repeats them before verifying, so a
// change the gate would refuse never passes.
package changegate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/redact"
)

// Tool is the tool name of the records Check returns.
const Tool = "change"

// Calls returns the gate's view of a change: one write_file call for the
// paths added or modified and one delete_file call for the paths deleted
// (each only when there are such paths), both carrying the change's total
// changed lines (added plus removed). An empty change still yields one
// write call with no paths, so the line count is judged.
func Calls(ch events.Change) []policy.ToolCall {
	var written, deleted []string
	for _, f := range ch.Files {
		if f.Op == "delete" {
			deleted = append(deleted, f.Path)
		} else {
			written = append(written, f.Path)
		}
	}
	lines := ch.Added + ch.Removed
	var calls []policy.ToolCall
	if len(written) > 0 || len(deleted) == 0 {
		calls = append(calls, policy.ToolCall{Tool: policy.ToolWriteFile, Paths: written, Writes: true,
			ChangedLines: lines, TotalChangedLines: lines})
	}
	if len(deleted) > 0 {
		calls = append(calls, policy.ToolCall{Tool: policy.ToolDeleteFile, Paths: deleted, Deletes: true,
			ChangedLines: lines, TotalChangedLines: lines})
	}
	return calls
}

// Check evaluates ch under p and returns one audit record per call of
// [Calls]: stage "change", the gate's decision with reasons and warnings
// redacted, and a failed result when the call is blocked. policyHash is
// recorded with each decision.
func Check(p *policy.Policy, policyHash string, r *redact.Redactor, ch events.Change) []events.ToolExecution {
	calls := Calls(ch)
	recs := make([]events.ToolExecution, 0, len(calls))
	for _, call := range calls {
		d := p.Evaluate(call)
		raw, _ := json.Marshal(call)
		if red, err := r.JSON(raw); err == nil {
			raw = red
		}
		rec := events.ToolExecution{Tool: Tool, Call: raw, Gate: events.GateDecision{
			Stage: events.GateStageChange, Blocked: d.Blocked, Reasons: redactAll(r, d.Reasons),
			Warnings: redactAll(r, d.Warnings), PolicyHash: policyHash, Evaluator: policy.EvaluatorVersion,
		}, Result: events.ToolResult{OK: !d.Blocked}}
		if d.Blocked {
			rec.Result.Error = "blocked by policy: " + strings.Join(rec.Gate.Reasons, "; ")
		}
		recs = append(recs, rec)
	}
	return recs
}

// Violations returns the reasons of the blocked records, in order and
// without duplicates; none means the change may be verified.
func Violations(recs []events.ToolExecution) []string {
	var out []string
	for _, rec := range recs {
		if rec.Gate.Blocked {
			out = appendNew(out, rec.Gate.Reasons)
		}
	}
	return out
}

// Warnings returns the warnings of the records, in order and without
// duplicates.
func Warnings(recs []events.ToolExecution) []string {
	var out []string
	for _, rec := range recs {
		out = appendNew(out, rec.Gate.Warnings)
	}
	return out
}

// appendNew appends the entries of add that out does not hold yet.
func appendNew(out, add []string) []string {
	for _, s := range add {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func redactAll(r *redact.Redactor, in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = r.String(s)
	}
	return out
}

// CheckDiff is [Check] on the union ([Merge]) of the change a workspace
// reports and what diff itself says ([FromDiff]), so that neither a file
// list cut short nor a diff that hides a file gets past the gate. The
// links judged, and the line counts, are also those of the reported
// change's own patch.
// A diff that cannot be read fails closed: one blocked record says why.
func CheckDiff(p *policy.Policy, policyHash string, r *redact.Redactor, reported events.Change, diff string) []events.ToolExecution {
	d, err := parse(diff)
	if err != nil {
		return []events.ToolExecution{blocked(r, policyHash, policy.ReasonInvalidCall+": the change's diff cannot be read: "+err.Error())}
	}
	links, ch := d.links, Merge(reported, d.change)
	if reported.Diff != "" && reported.Diff != diff {
		// The reported change's own patch (the work tree as git writes it,
		// see Workspace.ApplyChange) shows every link as one, however diff
		// spelled it, and the data of every binary file it holds, however
		// diff made it (a copy says nothing of its size).
		rd, err := parse(reported.Diff)
		if err != nil {
			return []events.ToolExecution{blocked(r, policyHash, policy.ReasonInvalidCall+": the applied change's diff cannot be read: "+err.Error())}
		}
		links, ch = append(links, rd.links...), Merge(ch, rd.change)
	}
	recs := Check(p, policyHash, r, ch)
	// A symbolic link the change writes (a command can make one) must stay
	// inside the repository, as links copied into a workspace must.
	for _, l := range links {
		if why := l.LeavesTree(); why != "" {
			recs = append(recs, blocked(r, policyHash, fmt.Sprintf("symbolic link %s -> %s: %s", l.Path, l.Target, why)))
		}
	}
	return recs
}

// blocked is a blocked change record with reason (redacted).
func blocked(r *redact.Redactor, policyHash, reason string) events.ToolExecution {
	reason = r.String(reason)
	return events.ToolExecution{Tool: Tool, Call: json.RawMessage(`{"tool":"` + Tool + `"}`),
		Gate: events.GateDecision{Stage: events.GateStageChange, Blocked: true, Reasons: []string{reason},
			PolicyHash: policyHash, Evaluator: policy.EvaluatorVersion},
		Result: events.ToolResult{Error: "blocked by policy: " + reason}}
}
