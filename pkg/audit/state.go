// Package audit turns a run's pipeline events into its RAO history: it
// folds each event into the run's state document and appends one RaoEvent
// per change (a `run` event per phase step, an `audit` event per gated tool
// call, an `override` per operator action), idempotently and with
// optimistic concurrency, so a recorder restart or a redelivered event never
// duplicates or skips an entry.
package audit

import (
	"encoding/json"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
)

// Run statuses in the state document.
const (
	StatusRunning   = "running"
	StatusPassed    = "passed"
	StatusFailed    = "failed"
	StatusCancelled = "canceled"
)

// State is a run's state document: what the RAO history records, one
// delta at a time.
type State struct {
	RunID   string            `json:"run_id"`
	Project string            `json:"project,omitempty"`
	Status  string            `json:"status"`
	Phase   string            `json:"phase,omitempty"`
	Attempt int               `json:"attempt"`
	Request *events.Requested `json:"request,omitempty"`
	// RequestDigest is the digest of the run's request (taken before
	// redaction): every later event must carry the same request.
	RequestDigest string          `json:"request_digest,omitempty"`
	Context       *ContextSummary `json:"context,omitempty"`
	Attempts      []Attempt       `json:"attempts"`
	Verdict       *Verdict        `json:"verdict,omitempty"`
	Codex         string          `json:"codex,omitempty"`
	// Usage is the run's model usage so far, per phase, provider and model.
	Usage     []events.ModelUsage `json:"usage,omitempty"`
	Overrides []Override          `json:"overrides"`
	Notes     []Note              `json:"notes"`
	// Approvals are the tool calls the run was parked on, with their
	// decisions.
	Approvals []Approval `json:"approvals,omitempty"`
	// ForkedFrom links a forked run to its parent; Forks lists the runs
	// forked from this one.
	ForkedFrom *ForkLink  `json:"forked_from,omitempty"`
	Forks      []ForkLink `json:"forks,omitempty"`
	// Spend is the run's model use per phase, as its last event carried it.
	Spend events.SpendByPhase `json:"spend,omitempty"`
	// Refused lists the events that did not belong to the run (a second
	// request for its id, another request's phase event): recorded, never
	// folded in.
	Refused []Refusal `json:"refused,omitempty"`
	// Causes lists the pipeline events and operator actions already folded
	// in, so redeliveries are recognised even after compaction.
	Causes []string `json:"causes"`
}

// ContextSummary is what the audit keeps of the librarian's bundle.
type ContextSummary struct {
	Summary   string              `json:"summary"`
	BundleRef *events.ArtifactRef `json:"bundle_ref,omitempty"`
	// ToolCalls are the librarian's gated retrieval calls, in order.
	ToolCalls []events.ToolExecution `json:"tool_calls,omitempty"`
}

// Attempt is one plan → build → verify cycle.
type Attempt struct {
	Attempt   int                    `json:"attempt"`
	Plan      *events.Plan           `json:"plan,omitempty"`
	ToolCalls []events.ToolExecution `json:"tool_calls"`
	Change    *ChangeSummary         `json:"change,omitempty"`
	Result    *AttemptResult         `json:"result,omitempty"`
	// Cognition is the builder's Cognitive Protocol record of the attempt.
	Cognition *events.BuildCognition `json:"cognition,omitempty"`
	// CortexState is the project's Cortex state as the attempt's plan
	// left it (the plan event's cortex.state): a run's exported goals.json
	// is projected from the last one.
	CortexState *cognition.CognitionState `json:"cortex_state,omitempty"`
	// PlanMode is how the plan was made: planned, fast or reused.
	PlanMode string `json:"plan_mode,omitempty"`
	// Feedback is the critic's reasons the reused plan carried.
	Feedback []string `json:"feedback,omitempty"`
	// Usage is the attempt's model usage, per phase, provider and model.
	Usage []events.ModelUsage `json:"usage,omitempty"`
	// ModelCalls are the recorded model exchanges of the attempt, in the
	// order the phases made them.
	ModelCalls []ModelCall `json:"model_calls,omitempty"`
}

// ModelCall is one recorded model exchange of a phase.
type ModelCall struct {
	Phase string `json:"phase"`
	events.ExchangeRef
}

// ChangeSummary is what the audit keeps of a change: files and counts, and
// the diff's digest (the diff itself stays in the event or object store).
type ChangeSummary struct {
	Files   []events.FileChange `json:"files"`
	Added   int                 `json:"added"`
	Removed int                 `json:"removed"`
	Summary string              `json:"summary,omitempty"`
}

// AttemptResult is the critic's judgement of an attempt.
type AttemptResult struct {
	Outcome string               `json:"outcome"` // passed, retry, failed
	Reason  string               `json:"reason"`
	Checks  []events.CheckResult `json:"checks,omitempty"`
	// RetryPhase is where a retry went: architect or builder.
	RetryPhase string `json:"retry_phase,omitempty"`
	// Alignment and Review are the critic's judgement.
	Alignment *events.Alignment `json:"alignment,omitempty"`
	Review    *events.Review    `json:"review,omitempty"`
}

// Verdict is the run's end.
type Verdict struct {
	Status    string   `json:"status"`
	Phase     string   `json:"phase"`
	Reason    string   `json:"reason"`
	Integrity string   `json:"integrity"`
	Attempts  int      `json:"attempts"`
	Warnings  []string `json:"warnings,omitempty"`
	// Usage sums the run's model usage.
	Usage *events.UsageTotal `json:"usage,omitempty"`
}

// Override is an operator action.
type Override struct {
	Action string `json:"action"`
	By     string `json:"by"`
	Reason string `json:"reason"`
	TS     string `json:"ts"`
}

// Refusal records an event that was refused because it does not belong
// to the run.
type Refusal struct {
	// Event is the refused event's id.
	Event string `json:"event"`
	// Source is its CloudEvents source (who published it).
	Source string `json:"source"`
	// Reason says why it was refused.
	Reason string `json:"reason"`
	TS     string `json:"ts"`
}

// ForkLink is one end of a fork: the other run and the parent's event
// the child started from.
type ForkLink struct {
	Run   string `json:"run"`
	Event string `json:"event"`
	By    string `json:"by,omitempty"`
	TS    string `json:"ts,omitempty"`
}

// Note is an auditor's annotation.
type Note struct {
	By   string `json:"by"`
	Text string `json:"text"`
	TS   string `json:"ts"`
}

// NewState is the state of a run before its first event.
func NewState(runID string) State {
	return State{RunID: runID, Status: StatusRunning, Attempts: []Attempt{}, Overrides: []Override{}, Notes: []Note{}, Causes: []string{}}
}

// DecodeState parses a replayed state document; the empty document {}
// gives NewState(runID).
func DecodeState(runID string, raw []byte) (State, error) {
	st := NewState(runID)
	if len(raw) == 0 {
		return st, nil
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return State{}, err
	}
	if st.RunID == "" {
		st.RunID = runID
	}
	if st.Status == "" {
		st.Status = StatusRunning
	}
	for _, s := range []*[]string{&st.Causes} {
		if *s == nil {
			*s = []string{}
		}
	}
	if st.Attempts == nil {
		st.Attempts = []Attempt{}
	}
	if st.Overrides == nil {
		st.Overrides = []Override{}
	}
	if st.Notes == nil {
		st.Notes = []Note{}
	}
	return st, nil
}

// HasCause reports whether the cause was already folded in.
func (s *State) HasCause(c string) bool {
	for _, x := range s.Causes {
		if x == c {
			return true
		}
	}
	return false
}

// Terminal reports whether the run has ended.
func (s *State) Terminal() bool { return s.Status != StatusRunning }

// attempt returns the record of attempt n, creating it when needed; the
// list stays ordered by attempt number whatever order events arrive in.
func (s *State) attempt(n int) *Attempt {
	if n < 1 {
		n = 1
	}
	i := 0
	for ; i < len(s.Attempts) && s.Attempts[i].Attempt <= n; i++ {
		if s.Attempts[i].Attempt == n {
			return &s.Attempts[i]
		}
	}
	s.Attempts = append(s.Attempts, Attempt{})
	copy(s.Attempts[i+1:], s.Attempts[i:])
	s.Attempts[i] = Attempt{Attempt: n, ToolCalls: []events.ToolExecution{}}
	return &s.Attempts[i]
}
