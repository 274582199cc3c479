package audit

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

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
}

// OperatorSource is the CloudEvents source of operator actions (cancel).
const OperatorSource = "codali/operator"

// Fold returns the steps that record a pipeline event. A `built` event
// becomes one `audit` step per tool call (with its gate decision) then a
// `run` step for the change; a `failed` event from an operator becomes an
// `override` step. It returns an error for an event whose data cannot be
// decoded.
func Fold(e events.Envelope) ([]Step, error) {
	kind, err := e.Kind()
	if err != nil {
		return nil, err
	}
	run := events.RunOf(e)
	base := Step{Cause: e.ID, Kind: rao.KindRun, PMRev: run.PMRev}
	withRun := func(s *State) {
		if run.Project != "" {
			s.Project = run.Project
		}
		if run.Codex != "" {
			s.Codex = run.Codex
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
			return []Step{base}, nil
		}
		base.Summary = "request received: " + oneLine(d.Request, 100)
		if err := d.Validate(); err != nil {
			base.Summary = "invalid request received: " + oneLine(err.Error(), 100)
		}
		base.Mutate = func(s *State) {
			s.Request, s.Phase, s.Attempt = &d, "requested", 1
		}
		return []Step{base}, nil
	case events.KindContext:
		var d events.ContextData
		if err := events.DecodeData(e, &d); err != nil {
			return nil, err
		}
		base.Summary = "librarian context: " + d.Summary
		base.Mutate = func(s *State) {
			withRun(s)
			if s.Request == nil {
				req := d.Run.Request
				s.Request = &req
			}
			s.Phase = events.ServiceLibrarian
			s.Context = &ContextSummary{Summary: d.Summary, BundleRef: d.BundleRef}
		}
		return []Step{base}, nil
	case events.KindPlan:
		var d events.PlanData
		if err := events.DecodeData(e, &d); err != nil {
			return nil, err
		}
		base.Summary = fmt.Sprintf("architect plan (attempt %d): %d steps, %d checks", e.Attempt, len(d.Plan.Steps), len(d.Plan.Verify))
		base.Mutate = func(s *State) {
			withRun(s)
			s.Phase, s.Attempt = events.ServiceArchitect, e.Attempt
			p := d.Plan
			s.attempt(e.Attempt).Plan = &p
			addModelCalls(s, e.Attempt, events.ServiceArchitect, d.Exchanges)
		}
		return []Step{base}, nil
	case events.KindBuilt:
		var d events.BuiltData
		if err := events.DecodeData(e, &d); err != nil {
			return nil, err
		}
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
			s.attempt(e.Attempt).Change = &ChangeSummary{Files: files, Added: d.Change.Added, Removed: d.Change.Removed, Summary: d.Summary}
			addModelCalls(s, e.Attempt, events.ServiceBuilder, d.Exchanges)
		}
		return append(steps, base), nil
	case events.KindRetry:
		var d events.RetryData
		if err := events.DecodeData(e, &d); err != nil {
			return nil, err
		}
		prev := e.Attempt - 1
		base.Summary = fmt.Sprintf("critic: attempt %d rejected, retry as attempt %d: %s", prev, e.Attempt, oneLine(d.Reason, 120))
		base.Mutate = func(s *State) {
			withRun(s)
			s.Phase, s.Attempt = events.ServiceCritic, e.Attempt
			s.attempt(prev).Result = &AttemptResult{Outcome: "retry", Reason: d.Reason, Checks: d.Checks}
			s.attempt(e.Attempt)
		}
		return []Step{base}, nil
	case events.KindPassed, events.KindFailed:
		var d events.VerdictData
		if err := events.DecodeData(e, &d); err != nil {
			return nil, err
		}
		base.Summary = fmt.Sprintf("%s (%s, attempt %d, integrity %s): %s", kind, d.Phase, e.Attempt, d.Integrity, oneLine(d.Reason, 120))
		status := d.Status
		if e.Source == OperatorSource {
			base.Kind = rao.KindOverride
			status = StatusCancelled
			base.Summary = "operator cancelled the run: " + oneLine(d.Reason, 120)
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
				s.attempt(e.Attempt).Result = &AttemptResult{Outcome: outcome, Reason: d.Reason, Checks: d.Checks}
			}
			s.Verdict = &Verdict{Status: status, Phase: d.Phase, Reason: d.Reason, Integrity: d.Integrity, Attempts: d.Attempts, Warnings: d.Warnings}
		}
		return []Step{base}, nil
	}
	return nil, fmt.Errorf("%w: %s", events.ErrUnknownKind, kind)
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
