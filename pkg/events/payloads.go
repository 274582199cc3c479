package events

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ArtifactRef points at a large artifact kept in the object store bucket
// BucketArtifacts instead of inline in an event.
type ArtifactRef struct {
	// Bucket is the object store bucket.
	Bucket string `json:"bucket"`
	// Name is the object name.
	Name string `json:"name"`
	// Size is the artifact's size in bytes.
	Size int64 `json:"size"`
	// SHA256 is the hex digest of the artifact.
	SHA256 string `json:"sha256"`
}

// Snippet is a small window of one file.
type Snippet struct {
	// DocID is the document's id in the index (Docdex doc_id; the path
	// for the built-in index).
	DocID     string `json:"doc_id,omitempty"`
	Path      string `json:"path"`
	LineStart int    `json:"line_start,omitempty"`
	LineEnd   int    `json:"line_end,omitempty"`
	Content   string `json:"content"`
}

// FileInfo describes one file of the repository.
type FileInfo struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}

// ContextBundle is the librarian's "state of the world": structured facts
// only, no reasoning (codali-cognitive-architecture §4). The spec's fields
// are always present (empty lists rather than missing) once Normalize ran.
type ContextBundle struct {
	// Request is the user's request.
	Request string `json:"request"`
	// Queries are the focused search queries derived from the request.
	Queries []string `json:"queries"`
	// Files lists the repository's files (bounded).
	Files []FileInfo `json:"files,omitempty"`
	// Snippets are the most relevant file windows.
	Snippets []Snippet `json:"snippets"`
	// Symbols summarise the declarations of the likely-to-change files.
	Symbols []FileSymbols `json:"symbols"`
	// AST outlines the syntax of the likely-to-change files.
	AST []FileAST `json:"ast"`
	// Impact places the likely-to-change files in the import graph.
	Impact []FileImpact `json:"impact"`
	// ImpactDiagnostics report imports the graph could not resolve, when
	// it looks sparse.
	ImpactDiagnostics []FileImpactDiagnostics `json:"impact_diagnostics"`
	// Memory are lessons: Docdex repository memory (source "repo") and the
	// project's L1 memory (source "project").
	Memory []MemoryItem `json:"memory"`
	// GoldenExamples are known-good changes ranked for this request.
	GoldenExamples []GoldenExample `json:"golden_examples"`
	// PreferencesDetected are preferences the request states explicitly.
	PreferencesDetected []Preference `json:"preferences_detected"`
	// Profile are the agent's stored preferences.
	Profile []ProfileItem `json:"profile"`
	// Goals are the project's open goals, one line each.
	Goals []string `json:"goals,omitempty"`
	// Index summarises index coverage and freshness.
	Index IndexStats `json:"index"`
	// Warnings are problems the librarian noticed (truncation, skipped
	// files, an unreachable or stale Docdex).
	Warnings []string `json:"warnings"`
}

// GoldenExample is a passed run as the bundle shows it.
type GoldenExample struct {
	Intent string   `json:"intent"`
	Plan   string   `json:"plan,omitempty"`
	Files  []string `json:"files,omitempty"`
	Patch  string   `json:"patch"`
}

// IndexStats summarises what the librarian indexed.
type IndexStats struct {
	// Source is "docdex" or "builtin".
	Source   string `json:"source,omitempty"`
	NumFiles int    `json:"num_files"`
	// NumDocs is the number of indexed documents.
	NumDocs   int   `json:"num_docs"`
	NumBytes  int64 `json:"num_bytes"`
	Truncated bool  `json:"truncated,omitempty"`
	// LastUpdateMS is when the index was last built (not when it was
	// read): a cached index keeps its build time.
	LastUpdateMS int64 `json:"last_updated_epoch_ms"`
	// Stale reports an index older than the configured limit.
	Stale bool `json:"stale,omitempty"`
}

// ContextData is the data of codali.run.<id>.context.
type ContextData struct {
	Run Run `json:"run"`
	// Bundle is the context bundle, inline when small.
	Bundle *ContextBundle `json:"bundle,omitempty"`
	// BundleRef points at the bundle in the object store; always set, so
	// later phases can carry the reference alone.
	BundleRef *ArtifactRef `json:"bundle_ref"`
	// Summary is a one-line description for timelines.
	Summary string `json:"summary"`
	// Tools are the librarian's gated retrieval calls (Docdex actions), in
	// order, each with its gate decision and duration.
	Tools []ToolExecution `json:"tools,omitempty"`
}

// Validate requires the bundle reference and a valid request.
func (d ContextData) Validate() error {
	if d.BundleRef == nil {
		return errors.New("context: bundle_ref is required")
	}
	return d.Run.Request.Validate()
}

// PlanStep is one step of the architect's plan.
type PlanStep struct {
	ID          string   `json:"id"`
	Description string   `json:"description"`
	Files       []string `json:"files,omitempty"`
}

// VerifyCommand is one verification the critic runs in the changed
// workspace. The command runs without a shell.
type VerifyCommand struct {
	Name    string   `json:"name"`
	Command []string `json:"command"`
	// TimeoutMS bounds the command; 0 means the configured default.
	TimeoutMS int `json:"timeout_ms,omitempty"`
}

// Plan is the architect's output: steps, target files, risks and the
// verification strategy. No code.
type Plan struct {
	Summary     string     `json:"summary"`
	Steps       []PlanStep `json:"steps"`
	TargetFiles []string   `json:"target_files,omitempty"`
	// Creates lists new files the change may add (the critic's alignment
	// accepts them besides TargetFiles and the steps' files).
	Creates []string        `json:"creates,omitempty"`
	Risks   []string        `json:"risks,omitempty"`
	Verify  []VerifyCommand `json:"verify"`
}

// Validate checks the plan has steps and runnable verification commands.
func (p Plan) Validate() error {
	var errs []error
	if len(p.Steps) == 0 {
		errs = append(errs, errors.New("plan: no steps"))
	}
	for i, s := range p.Steps {
		if s.Description == "" {
			errs = append(errs, fmt.Errorf("plan: step %d has no description", i+1))
		}
	}
	if len(p.Verify) == 0 {
		errs = append(errs, errors.New("plan: no verification commands"))
	}
	for i, v := range p.Verify {
		if len(v.Command) == 0 || v.Command[0] == "" {
			errs = append(errs, fmt.Errorf("plan: verify %d (%q) has no command", i+1, v.Name))
		}
		if v.TimeoutMS < 0 {
			errs = append(errs, fmt.Errorf("plan: verify %d has a negative timeout", i+1))
		}
	}
	return errors.Join(errs...)
}

// PlanData is the data of codali.run.<id>.plan.
type PlanData struct {
	Run       Run            `json:"run"`
	Plan      Plan           `json:"plan"`
	Bundle    *ContextBundle `json:"bundle,omitempty"`
	BundleRef *ArtifactRef   `json:"bundle_ref,omitempty"`
	// Cortex reports what became of the model's Cortex output IR.
	Cortex *CortexReport `json:"cortex,omitempty"`
	// Mode says how the plan was made: "planned" (the model planned),
	// "fast" (the fast path: no model call) or "reused" (a retry to the
	// builder: the previous plan, re-emitted without a model call).
	Mode string `json:"mode,omitempty"`
	// Feedback is the critic's reasons carried to the builder on a retry.
	Feedback []string `json:"feedback,omitempty"`
	// Usage is this phase's model usage.
	Usage []ModelUsage `json:"usage,omitempty"`
	// Exchanges are the model exchanges of the handling that produced this
	// event, in call order.
	Exchanges []ExchangeRef `json:"exchanges,omitempty"`
}

// Plan modes.
const (
	PlanModePlanned = "planned"
	PlanModeFast    = "fast"
	PlanModeReused  = "reused"
)

// Validate checks the plan.
func (d PlanData) Validate() error { return d.Plan.Validate() }

// Gate stages: who decided about a tool call.
const (
	// GateStagePolicy: the policy gate evaluated the call.
	GateStagePolicy = "policy"
	// GateStageWorkspace: path safety refused the call before the gate
	// (absolute path, escape through "..", a symlink or into .git); this
	// counts as a block.
	GateStageWorkspace = "workspace"
	// GateStageArguments: the call was malformed (unknown tool, bad
	// arguments, an edit whose text is not found) and never reached the
	// gate; this is a tool error, not a block.
	GateStageArguments = "arguments"
	// GateStageChange: the policy gate evaluated the paths and line count
	// of the attempt's finished change (whatever made it: tools or
	// commands); a block fails the attempt.
	GateStageChange = "change"
)

// GateDecision is the policy gate's decision on one tool call, with the
// policy and evaluator that made it.
type GateDecision struct {
	// Stage says who decided: policy, workspace or arguments.
	Stage      string   `json:"stage,omitempty"`
	Blocked    bool     `json:"blocked"`
	Reasons    []string `json:"reasons,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	PolicyHash string   `json:"policy_hash,omitempty"`
	Evaluator  string   `json:"evaluator,omitempty"`
}

// ToolResult is the outcome of one tool execution.
type ToolResult struct {
	OK         bool   `json:"ok"`
	Error      string `json:"error,omitempty"`
	Output     string `json:"output,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// ToolExecution records one tool call the builder's model asked for: the
// arguments (redacted, long contents elided), the gate's view of the call
// (the policy ToolCall JSON), the gate's decision, and the result.
type ToolExecution struct {
	Step   int             `json:"step"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args,omitempty"`
	Call   json.RawMessage `json:"call"`
	Gate   GateDecision    `json:"gate"`
	Result ToolResult      `json:"result"`
	// Approval is the decision a parked call ran (or was refused) under.
	Approval *ToolApproval `json:"approval,omitempty"`
}

// FileChange names one changed file.
type FileChange struct {
	Path string `json:"path"`
	// Op is "add", "modify" or "delete".
	Op string `json:"op"`
}

// Change is the builder's change to the repository as a unified diff.
type Change struct {
	// Diff is the unified diff, inline when small.
	Diff string `json:"diff,omitempty"`
	// DiffRef points at the diff in the object store when large.
	DiffRef *ArtifactRef `json:"diff_ref,omitempty"`
	// Files lists the changed files.
	Files []FileChange `json:"files"`
	// Added and Removed count changed lines.
	Added   int `json:"added"`
	Removed int `json:"removed"`
}

// Empty reports whether the change changes nothing.
func (c Change) Empty() bool { return len(c.Files) == 0 }

// BuiltData is the data of codali.run.<id>.built.
type BuiltData struct {
	Run       Run             `json:"run"`
	BundleRef *ArtifactRef    `json:"bundle_ref,omitempty"`
	Plan      Plan            `json:"plan"`
	Change    Change          `json:"change"`
	Tools     []ToolExecution `json:"tools"`
	// Summary is the builder model's own summary of what it did.
	Summary string `json:"summary,omitempty"`
	// Cognition is the builder's Cognitive Protocol record of the attempt.
	Cognition *BuildCognition `json:"cognition,omitempty"`
	// Usage is this phase's model usage.
	Usage []ModelUsage `json:"usage,omitempty"`
	// Exchanges are the model exchanges of the handling that produced this
	// event, in call order.
	Exchanges []ExchangeRef `json:"exchanges,omitempty"`
}

// Validate checks the plan is present.
func (d BuiltData) Validate() error { return d.Plan.Validate() }

// CheckResult is the outcome of one verification command.
type CheckResult struct {
	Name       string   `json:"name"`
	Command    []string `json:"command"`
	ExitCode   int      `json:"exit_code"`
	OK         bool     `json:"ok"`
	Output     string   `json:"output,omitempty"`
	DurationMS int64    `json:"duration_ms"`
}

// RetryData is the data of codali.run.<id>.retry: the critic sends the run
// back to the architect for the attempt in the envelope.
type RetryData struct {
	Run       Run           `json:"run"`
	BundleRef *ArtifactRef  `json:"bundle_ref,omitempty"`
	Reason    string        `json:"reason"`
	Checks    []CheckResult `json:"checks,omitempty"`
	Previous  Plan          `json:"previous_plan"`
	// RetryPhase is where the attempt goes back to: architect (re-plan, the
	// default) or builder (the same plan, with Reasons attached).
	RetryPhase string `json:"retry_phase,omitempty"`
	// Reasons are the critic's reasons, one per problem.
	Reasons []string `json:"reasons,omitempty"`
	// Alignment and Review are the critic's judgement of the attempt.
	Alignment *Alignment `json:"alignment,omitempty"`
	Review    *Review    `json:"review,omitempty"`
	// Usage is the critic's model usage for the attempt.
	Usage []ModelUsage `json:"usage,omitempty"`
	// Exchanges are the model exchanges of the handling that produced this
	// event, in call order.
	Exchanges []ExchangeRef `json:"exchanges,omitempty"`
}

// Verdict statuses.
const (
	StatusPassed = "passed"
	StatusFailed = "failed"
	// StatusCanceled ends a run an operator cancelled (a `failed` event
	// from codali/operator): not a failure of the run itself.
	StatusCanceled = "canceled"
)

// Reason codes of terminal events (VerdictData.Code).
const (
	// CodeCanceled: an operator cancelled the run.
	CodeCanceled = "canceled"
	// CodeApprovalTimeout: a parked run was not decided in time.
	CodeApprovalTimeout = "approval_timeout"
)

// Integrity levels of the RL4-CODEX payload.
const (
	IntegrityGreen = "green"
	IntegrityAmber = "amber"
	IntegrityRed   = "red"
)

// VerdictData is the data of the terminal events passed and failed.
type VerdictData struct {
	Run    Run    `json:"run"`
	Status string `json:"status"`
	// Phase is the service that ended the run.
	Phase string `json:"phase"`
	// Reason explains a failure, or summarises a pass.
	Reason string `json:"reason"`
	// Attempts is how many attempts the run used.
	Attempts int `json:"attempts"`
	// Integrity is green, amber or red.
	Integrity string        `json:"integrity"`
	Checks    []CheckResult `json:"checks,omitempty"`
	Change    *Change       `json:"change,omitempty"`
	Plan      *Plan         `json:"plan,omitempty"`
	Warnings  []string      `json:"warnings,omitempty"`
	// Alignment and Review are the critic's judgement of the last attempt.
	Alignment *Alignment `json:"alignment,omitempty"`
	Review    *Review    `json:"review,omitempty"`
	// Usage is the ending phase's own model usage (the critic's review).
	Usage []ModelUsage `json:"usage,omitempty"`
	// UsageTotal sums the run's model usage over every phase and attempt.
	UsageTotal *UsageTotal `json:"usage_total,omitempty"`
	// Exchanges are the model exchanges of the handling that produced this
	// event, in call order.
	Exchanges []ExchangeRef `json:"exchanges,omitempty"`
	// Code is a machine-readable reason: "canceled", "approval_timeout";
	// empty for the ordinary end of a run.
	Code string `json:"code,omitempty"`
	// Approvals are the human decisions the last attempt's parked calls
	// ran (or were refused) under. An approved call's "requires approval"
	// warning is settled by its decision and does not lower integrity.
	Approvals []VerdictApproval `json:"approvals,omitempty"`
}

// VerdictApproval is one decision on a parked call, with the step and tool
// of the call.
type VerdictApproval struct {
	Step int    `json:"step"`
	Tool string `json:"tool"`
	ToolApproval
}

// Validate checks the status and integrity values.
func (d VerdictData) Validate() error {
	if d.Status != StatusPassed && d.Status != StatusFailed && d.Status != StatusCanceled {
		return fmt.Errorf("verdict: status %q", d.Status)
	}
	switch d.Integrity {
	case IntegrityGreen, IntegrityAmber, IntegrityRed:
	default:
		return fmt.Errorf("verdict: integrity %q", d.Integrity)
	}
	return nil
}

// GateCounts counts, over a build's tool executions, the calls that were
// blocked and the approval warnings raised.
func GateCounts(tools []ToolExecution) (blocked, warnings int) {
	for _, t := range tools {
		if t.Gate.Blocked {
			blocked++
		}
		warnings += len(t.Gate.Warnings)
	}
	return blocked, warnings
}

// ExchangeRef points at one recorded model exchange (request, response,
// usage and timing) kept in the object store, so a run's history says what
// each phase asked its model and what it answered.
type ExchangeRef struct {
	// Hash is the SHA-256 of the exchange's canonical redacted request:
	// equal requests have equal hashes.
	Hash string `json:"hash"`
	// Step is the request's step within the phase's handling.
	Step int `json:"step,omitempty"`
	// Failed is set when the model call returned an error.
	Failed bool `json:"failed,omitempty"`
	// Ref points at the exchange record.
	Ref ArtifactRef `json:"ref"`
}
