package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/rao"
)

// Step is one state change to record: its cause (unique per change), the
// kind of RaoEvent, a one-line summary, the tags, and the mutation.
type Step struct {
	Cause   string
	Kind    rao.Kind
	Summary string
	// PolicyHash overrides the recorder's policy hash (a gate decision
	// carries the hash of the policy that made it).
	PolicyHash string
	// PMRev is the project state revision the event saw, if known.
	PMRev  uint64
	Mutate func(*State)
	// Check, when set on an event's first step, decides against the run's
	// state whether the event belongs to the run; when it does not, the
	// recorder records Refuse(reason) in place of the event's steps.
	Check func(*State) error
	// Refuse builds the step recording the event's refusal.
	Refuse func(reason error) Step
}

// Refuse is the step recording that e was refused because it does not
// belong to its run (for instance a second request for the run id). The
// run's state is unchanged but for the refusal.
func Refuse(e events.Envelope, reason error) Step {
	ts := e.Time.UTC().Format("2006-01-02T15:04:05Z")
	// The cause names the refused content, not only its id: a forged event
	// may reuse the id of the run's own event, which must still be recorded.
	return Step{
		// A refusal is an event's only step, so like every event's first
		// step it carries a check (it always belongs): a refused event
		// before it in the same record must not take it for one of its own
		// later steps, which are skipped.
		Check: func(*State) error { return nil },
		Cause: e.ID + "#refused-" + dataTag(e), Kind: rao.KindRun,
		Summary: fmt.Sprintf("refused %s from %s: %s", e.ID, oneLine(e.Source, 60), oneLine(reason.Error(), 160)),
		Mutate: func(s *State) {
			s.Refused = append(s.Refused, Refusal{Event: e.ID, Source: e.Source, Reason: oneLine(reason.Error(), 300), TS: ts})
		},
	}
}

// dataTag names an event's data (a digest prefix), for the causes of
// events whose id does not name one message: a refused event, a decision
// (two decisions on one call share the call's id).
func dataTag(e events.Envelope) string {
	sum := sha256.Sum256(e.Data)
	return hex.EncodeToString(sum[:8])
}

// belongs checks e against the run's recorded request: a request must be
// attempt 1, and once the run has a request every event must carry it.
func belongs(e events.Envelope, c *carried) func(*State) error {
	return func(s *State) error {
		if s.RequestDigest == "" {
			if k, _ := e.Kind(); k == events.KindRequested && e.Attempt != 1 {
				return fmt.Errorf("%w: a run's request is attempt 1, got attempt %d for run %s", events.ErrConflict, e.Attempt, e.RunID())
			}
			return nil
		}
		if c == nil {
			return events.CheckBelongs(e, s.RequestDigest)
		}
		return events.CheckRequestBelongs(e, c.req, c.readable, s.RequestDigest)
	}
}

// OperatorSource is the CloudEvents source of operator actions (cancel).
const OperatorSource = "codali/operator"

// Fold returns the steps that record a pipeline event. A `built` event
// becomes one `audit` step per tool call (with its gate decision) then a
// `run` step for the change; a `failed` event from an operator becomes an
// `override` step. It returns an error for an event whose data cannot be
// decoded, but for a decision: an invalid one folds into its refusal
// (see foldApprovalDecided).
//
// The event's first step carries a check against the run's recorded
// request (see Step.Check): a second request, a request with an attempt
// other than 1, or a phase event carrying another request is recorded as
// refused and changes nothing else.
func Fold(e events.Envelope) ([]Step, error) {
	steps, req, err := fold(e)
	if err != nil || len(steps) == 0 {
		return steps, err
	}
	if steps[0].Check != nil {
		// A refusal already (a malformed decision), or a decision's own
		// check, which includes belongs.
		return steps, nil
	}
	steps[0].Check = belongs(e, req)
	steps[0].Refuse = func(reason error) Step { return Refuse(e, reason) }
	return steps, nil
}

// carried is the request an event carries, as events.RequestOf reads it
// from the same bytes, when fold decoded it already.
type carried struct {
	req      events.Requested
	readable bool
}

// fold decodes the event's data once: the run description is the one in
// the decoded payload (what events.RunOf reads from the same bytes), and
// the request it returns is what events.RequestOf would (nil when fold
// did not decode it: the check reads it then).
func fold(e events.Envelope) ([]Step, *carried, error) {
	kind, err := e.Kind()
	if err != nil {
		return nil, nil, err
	}
	// run is set once the payload is decoded, before any step is built;
	// withRun reads it when a step is applied.
	var run events.Run
	base := Step{Cause: e.ID, Kind: rao.KindRun}
	decoded := func(r events.Run) *carried {
		run, base.PMRev = r, r.PMRev
		return &carried{req: r.Request, readable: true}
	}
	withRun := func(s *State) {
		if run.Project != "" {
			s.Project = run.Project
		}
		if run.Codex != "" {
			s.Codex = run.Codex
		}
		if len(run.Usage) > 0 {
			s.Usage = run.Usage
		}
		if len(run.Spend) > 0 {
			s.Spend = run.Spend
		}
	}
	switch kind {
	case events.KindRequested:
		// Recorded even when invalid, so the history shows what was asked;
		// the librarian ends such a run with the reason.
		var d events.Requested
		if err := json.Unmarshal(e.Data, &d); err != nil {
			base.Summary = "request received with unreadable data: " + oneLine(err.Error(), 100)
			base.Mutate = func(s *State) { s.Phase, s.Attempt = "requested", 1 }
			return []Step{base}, &carried{}, nil
		}
		req := decoded(events.Run{Request: d})
		base.Summary = "request received: " + oneLine(d.Request, 100)
		if f := d.Options.Fork; f != nil {
			base.Summary = fmt.Sprintf("request received (fork of run %s at event %s): %s", f.Run, f.Event, oneLine(d.Request, 100))
		}
		if p := d.Options.Policy; p != nil {
			base.Summary += fmt.Sprintf(" [under the stored policy %s]", oneLine(p.Digest, 80))
		}
		if err := d.Validate(); err != nil {
			base.Summary = "invalid request received: " + oneLine(err.Error(), 100)
		}
		base.Mutate = func(s *State) {
			if s.Request == nil {
				s.Request, s.RequestDigest = &d, d.Digest()
				if f := d.Options.Fork; f != nil {
					s.ForkedFrom = &ForkLink{Run: f.Run, Event: f.Event, TS: e.Time.UTC().Format(time.RFC3339)}
				}
			}
			s.Phase, s.Attempt = "requested", 1
		}
		return []Step{base}, req, nil
	case events.KindContext:
		var d events.ContextData
		if err := events.DecodeData(e, &d); err != nil {
			return nil, nil, err
		}
		req := decoded(d.Run)
		// One audit step per gated retrieval call (the Phase 1 sequence),
		// then the context itself.
		steps := toolSteps(e, run, "librarian", d.Tools, func(s *State, t events.ToolExecution) {
			if s.Context == nil {
				s.Context = &ContextSummary{}
			}
			s.Context.ToolCalls = append(s.Context.ToolCalls, t)
		})
		base.Summary = "librarian context: " + d.Summary
		base.Mutate = func(s *State) {
			withRun(s)
			if s.Request == nil {
				req := d.Run.Request
				s.Request, s.RequestDigest = &req, req.Digest()
			}
			s.Phase = events.ServiceLibrarian
			var calls []events.ToolExecution
			if s.Context != nil {
				calls = s.Context.ToolCalls
			}
			s.Context = &ContextSummary{Summary: d.Summary, BundleRef: d.BundleRef, ToolCalls: calls}
		}
		return append(steps, base), req, nil
	case events.KindPlan:
		var d events.PlanData
		if err := events.DecodeData(e, &d); err != nil {
			return nil, nil, err
		}
		req := decoded(d.Run)
		base.Summary = fmt.Sprintf("architect plan (attempt %d): %d steps, %d checks", e.Attempt, len(d.Plan.Steps), len(d.Plan.Verify))
		switch d.Mode {
		case events.PlanModeFast:
			base.Summary = fmt.Sprintf("architect fast path (attempt %d): one-step plan without a model call, %d checks", e.Attempt, len(d.Plan.Verify))
		case events.PlanModeReused:
			base.Summary = fmt.Sprintf("architect re-emitted the plan to the builder (attempt %d) with %d critic reason(s), no model call", e.Attempt, len(d.Feedback))
		}
		base.Mutate = func(s *State) {
			withRun(s)
			s.Phase, s.Attempt = events.ServiceArchitect, e.Attempt
			p := d.Plan
			a := s.attempt(e.Attempt)
			a.Plan, a.PlanMode, a.Feedback = &p, d.Mode, d.Feedback
			if d.Cortex != nil && d.Cortex.State != nil {
				a.CortexState = d.Cortex.State
			}
			a.Usage = events.MergeUsage(a.Usage, d.Usage...)
			addModelCalls(s, e.Attempt, events.ServiceArchitect, d.Exchanges)
		}
		return []Step{base}, req, nil
	case events.KindBuilt:
		var d events.BuiltData
		if err := events.DecodeData(e, &d); err != nil {
			return nil, nil, err
		}
		req := decoded(d.Run)
		var steps []Step
		for j, t := range d.Tools {
			t := t
			gate := "allowed"
			if t.Gate.Blocked {
				gate = "BLOCKED"
			} else if len(t.Gate.Warnings) > 0 {
				gate = fmt.Sprintf("allowed, %d warning(s)", len(t.Gate.Warnings))
			}
			steps = append(steps, Step{
				Cause: e.ID + "#tool" + strconv.Itoa(j+1), Kind: rao.KindAudit, PolicyHash: t.Gate.PolicyHash, PMRev: run.PMRev,
				Summary: fmt.Sprintf("gate (attempt %d, step %d): %s %s", e.Attempt, t.Step, t.Tool, gate),
				Mutate: func(s *State) {
					a := s.attempt(e.Attempt)
					a.ToolCalls = append(a.ToolCalls, t)
				},
			})
		}
		base.Summary = fmt.Sprintf("builder change (attempt %d): %d files, +%d -%d", e.Attempt, len(d.Change.Files), d.Change.Added, d.Change.Removed)
		base.Mutate = func(s *State) {
			withRun(s)
			s.Phase, s.Attempt = events.ServiceBuilder, e.Attempt
			files := d.Change.Files
			if files == nil {
				files = []events.FileChange{}
			}
			a := s.attempt(e.Attempt)
			a.Change = &ChangeSummary{Files: files, Added: d.Change.Added, Removed: d.Change.Removed, Summary: d.Summary}
			a.Usage = events.MergeUsage(a.Usage, d.Usage...)
			// The builder's Cognitive Protocol entries: a run's .context/
			// is projected from them (codali context export).
			a.Cognition = d.Cognition
			addModelCalls(s, e.Attempt, events.ServiceBuilder, d.Exchanges)
		}
		return append(steps, base), req, nil
	case events.KindRetry:
		var d events.RetryData
		if err := events.DecodeData(e, &d); err != nil {
			return nil, nil, err
		}
		req := decoded(d.Run)
		prev := e.Attempt - 1
		phase := d.RetryPhase
		if phase == "" {
			phase = events.RetryArchitect
		}
		base.Summary = fmt.Sprintf("critic: attempt %d rejected, retry as attempt %d via the %s: %s", prev, e.Attempt, phase, oneLine(d.Reason, 120))
		base.Mutate = func(s *State) {
			withRun(s)
			s.Phase, s.Attempt = events.ServiceCritic, e.Attempt
			a := s.attempt(prev)
			a.Result = &AttemptResult{Outcome: "retry", Reason: d.Reason, Checks: d.Checks, RetryPhase: phase, Alignment: d.Alignment, Review: d.Review}
			a.Usage = events.MergeUsage(a.Usage, d.Usage...)
			s.attempt(e.Attempt)
		}
		return []Step{base}, req, nil
	case events.KindPassed, events.KindFailed:
		var d events.VerdictData
		if err := events.DecodeData(e, &d); err != nil {
			return nil, nil, err
		}
		req := decoded(d.Run)
		base.Summary = fmt.Sprintf("%s (%s, attempt %d, integrity %s): %s", kind, d.Phase, e.Attempt, d.Integrity, oneLine(d.Reason, 120))
		status := d.Status
		if e.Source == OperatorSource {
			base.Kind = rao.KindOverride
			status = StatusCancelled
			base.Summary = "operator canceled the run: " + oneLine(d.Reason, 120)
		}
		base.Mutate = func(s *State) {
			withRun(s)
			addModelCalls(s, e.Attempt, d.Phase, d.Exchanges)
			if s.Terminal() {
				// The run already ended (for instance cancelled): a late
				// verdict is kept as a note, the first end stands.
				s.Notes = append(s.Notes, Note{By: e.Source, Text: "late " + string(kind) + " after the run ended: " + oneLine(d.Reason, 200),
					TS: e.Time.UTC().Format("2006-01-02T15:04:05Z")})
				return
			}
			s.Status, s.Phase = status, d.Phase
			if e.Source == OperatorSource {
				s.Overrides = append(s.Overrides, Override{Action: "cancel", By: e.Source, Reason: d.Reason, TS: e.Time.UTC().Format("2006-01-02T15:04:05Z")})
			} else if d.Phase == events.ServiceCritic {
				outcome := "passed"
				if d.Status == events.StatusFailed {
					outcome = "failed"
				}
				a := s.attempt(e.Attempt)
				a.Result = &AttemptResult{Outcome: outcome, Reason: d.Reason, Checks: d.Checks, Alignment: d.Alignment, Review: d.Review}
				a.Usage = events.MergeUsage(a.Usage, d.Usage...)
			}
			s.Verdict = &Verdict{Status: status, Phase: d.Phase, Reason: d.Reason, Integrity: d.Integrity, Attempts: d.Attempts, Warnings: d.Warnings, Usage: d.UsageTotal}
		}
		return []Step{base}, req, nil
	case events.KindApprovalRequested:
		steps, err := foldApprovalRequested(e)
		return steps, nil, err
	case events.KindApprovalDecided:
		steps, err := foldApprovalDecided(e)
		return steps, nil, err
	case events.KindApprovalDeadline:
		steps, err := foldApprovalDeadline(e)
		return steps, nil, err
	}
	return nil, nil, fmt.Errorf("%w: %s", events.ErrUnknownKind, kind)
}

// addModelCalls records a phase's model exchanges in an attempt.
func addModelCalls(s *State, attempt int, phase string, refs []events.ExchangeRef) {
	if len(refs) == 0 {
		return
	}
	a := s.attempt(attempt)
	for _, r := range refs {
		a.ModelCalls = append(a.ModelCalls, ModelCall{Phase: phase, ExchangeRef: r})
	}
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// toolSteps are the audit steps of gated tool calls: one per call, named
// by the event id and the call's position.
func toolSteps(e events.Envelope, run events.Run, who string, tools []events.ToolExecution, add func(*State, events.ToolExecution)) []Step {
	var steps []Step
	for j, t := range tools {
		t := t
		gate := "allowed"
		if t.Gate.Blocked {
			gate = "BLOCKED"
		} else if len(t.Gate.Warnings) > 0 {
			gate = fmt.Sprintf("allowed, %d warning(s)", len(t.Gate.Warnings))
		}
		outcome := "ok"
		if !t.Result.OK {
			outcome = "failed"
		}
		steps = append(steps, Step{
			Cause: e.ID + "#tool" + strconv.Itoa(j+1), Kind: rao.KindAudit, PolicyHash: t.Gate.PolicyHash, PMRev: run.PMRev,
			Summary: fmt.Sprintf("gate (%s, step %d): %s %s, %s in %d ms", who, t.Step, t.Tool, gate, outcome, t.Result.DurationMS),
			Mutate:  func(s *State) { add(s, t) },
		})
	}
	return steps
}
