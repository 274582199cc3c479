package librarian

import (
	"context"
	"encoding/json"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/redact"
)

// maxRecordOutput bounds a recorded call's output summary.
const maxRecordOutput = 512

// recorder runs the librarian's retrieval calls behind the policy gate
// and records each one (arguments redacted, gate decision, outcome and
// duration), in order.
type recorder struct {
	policy     *policy.Policy
	policyHash string
	redactor   *redact.Redactor
	calls      []events.ToolExecution
}

// do gates and runs one call. paths are the repository paths the call
// reads (the gate judges them like read_file paths). It returns false
// when the gate blocked the call or fn failed; fn's error is recorded.
func (r *recorder) do(ctx context.Context, tool string, args map[string]any, paths []string, fn func(context.Context) (string, error)) (bool, error) {
	rec := events.ToolExecution{Step: len(r.calls) + 1, Tool: tool}
	if raw, err := json.Marshal(args); err == nil {
		if red, err := r.redactor.JSON(raw); err == nil {
			raw = red
		}
		rec.Args = raw
	}
	call := policy.ToolCall{Tool: tool, Paths: paths}
	rec.Call, _ = json.Marshal(call)
	start := time.Now()
	d := r.policy.Evaluate(call)
	rec.Gate = events.GateDecision{Stage: events.GateStagePolicy, Blocked: d.Blocked, Reasons: d.Reasons, Warnings: d.Warnings,
		PolicyHash: r.policyHash, Evaluator: policy.EvaluatorVersion}
	if d.Blocked {
		rec.Result = events.ToolResult{OK: false, Error: "blocked by policy", DurationMS: time.Since(start).Milliseconds()}
		r.calls = append(r.calls, rec)
		return false, nil
	}
	out, err := fn(ctx)
	rec.Result = events.ToolResult{OK: err == nil, Output: clip(r.redactor.String(out), maxRecordOutput), DurationMS: time.Since(start).Milliseconds()}
	if err != nil {
		rec.Result.Error = clip(r.redactor.String(err.Error()), maxRecordOutput)
	}
	r.calls = append(r.calls, rec)
	return err == nil, err
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
