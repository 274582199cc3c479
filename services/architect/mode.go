package architect

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/future"
	"github.com/codali-dev/codali/pkg/pmstate"
	"github.com/codali-dev/codali/pkg/worker"
)

// plan makes the plan of an event, in one of three ways:
//
//   - reused: a retry whose verdict says builder re-emits the previous
//     plan with the critic's reasons attached, without a model call;
//   - fast: the fast path (FastPath) makes a one-step plan with the
//     repository's default checks, without a model call;
//   - planned: the model plans (a retry re-plans with the feedback).
//
// answer is the model's raw answer ("" without a model call), for the
// Cortex output IR it may carry.
func (s *Service) plan(ctx context.Context, in events.Envelope, inp input) (plan events.Plan, mode string, feedback []string, usage []events.ModelUsage, answer string, err error) {
	if r := inp.retry; r != nil && r.RetryPhase == events.RetryBuilder && r.Previous.Validate() == nil {
		feedback := r.Reasons
		if len(feedback) == 0 && r.Reason != "" {
			feedback = []string{r.Reason}
		}
		return r.Previous, events.PlanModeReused, feedback, nil, "", nil
	}
	if plan, _, forked, err := forkedPlan(inp.run, in.Attempt); err != nil {
		return events.Plan{}, "", nil, nil, "", worker.Permanent(err)
	} else if forked {
		return plan, events.PlanModeReused, nil, nil, "", nil
	}
	if inp.retry == nil {
		if plan, ok := FastPath(inp.run.Request, inp.bundle); ok {
			return plan, events.PlanModeFast, nil, nil, "", nil
		}
	}
	if err := s.withinBudget(in.Attempt, inp.run); err != nil {
		return events.Plan{}, "", nil, nil, "", err
	}
	// The project state is read while the learning record is.
	rctx, cancelRead := context.WithCancel(ctx)
	defer cancelRead()
	stateRead := future.Go(func() (cognition.CognitionState, error) {
		cur, _, err := s.d.PM.Get(rctx, inp.run.Project)
		return cur, err
	})
	learned, err := s.learned(ctx, in.RunID(), inp.run, inp.bundle)
	if err != nil {
		return events.Plan{}, "", nil, nil, "", err
	}
	cur, err := stateRead.Wait()
	if err != nil {
		return events.Plan{}, "", nil, nil, "", fmt.Errorf("could not read the project state: %w", err)
	}
	msgs := prompt(inp, s.d.Config.Librarian.PromptTokens)
	if learned != "" {
		msgs[len(msgs)-1].Content += learned
	}
	msgs = append(msgs, cortexMessage(inp, cur))
	plan, answer, usage, err = s.ask(ctx, in, msgs)
	return plan, events.PlanModePlanned, nil, usage, answer, err
}

// maxFailureSummaries bounds the earlier runs' failures shown.
const maxFailureSummaries = 5

// learned is the prompt section with what the project learned: the golden
// examples the librarian ranked into the bundle and the failure summaries
// of earlier runs ("" when there is nothing).
func (s *Service) learned(ctx context.Context, runID string, run events.Run, bundle *events.ContextBundle) (string, error) {
	l, err := s.d.PM.Learning(ctx, run.Project)
	if err != nil {
		return "", fmt.Errorf("could not read what the project learned: %w", err)
	}
	var others []pmstate.Failure
	for _, f := range l.Failures {
		if f.RunID != runID { // this run's own failures are in the retry feedback
			others = append(others, f)
		}
	}
	if len(others) > maxFailureSummaries {
		others = others[len(others)-maxFailureSummaries:]
	}
	var b strings.Builder
	if bundle != nil && len(bundle.GoldenExamples) > 0 {
		b.WriteString("\nKnown-good changes on this repository (passed runs like this request):\n")
		for _, g := range bundle.GoldenExamples {
			fmt.Fprintf(&b, "- request: %s\n  plan: %s\n  files: %s\n  patch: %s\n", g.Intent, g.Plan, strings.Join(g.Files, ", "), g.Patch)
		}
	}
	failed := false
	for _, f := range others {
		if !failed {
			b.WriteString("\nEarlier failed attempts on this repository (avoid repeating them):\n")
			failed = true
		}
		b.WriteString("- " + f.Intent + ": attempt " + strconv.Itoa(f.Attempt) + ": " + f.Reason + "\n")
	}
	return b.String(), nil
}
