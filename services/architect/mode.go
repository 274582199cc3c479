package architect

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/pmstate"
)

// plan makes the plan of an event, in one of three ways:
//
//   - reused: a retry whose verdict says builder re-emits the previous
//     plan with the critic's reasons attached, without a model call;
//   - fast: the fast path (FastPath) makes a one-step plan with the
//     repository's default checks, without a model call;
//   - planned: the model plans (a retry re-plans with the feedback).
func (s *Service) plan(ctx context.Context, in events.Envelope, inp input) (events.Plan, string, []string, []events.ModelUsage, error) {
	if r := inp.retry; r != nil && r.RetryPhase == events.RetryBuilder && r.Previous.Validate() == nil {
		feedback := r.Reasons
		if len(feedback) == 0 && r.Reason != "" {
			feedback = []string{r.Reason}
		}
		return r.Previous, events.PlanModeReused, feedback, nil, nil
	}
	if inp.retry == nil {
		if plan, ok := FastPath(inp.run.Request, inp.bundle); ok {
			return plan, events.PlanModeFast, nil, nil, nil
		}
	}
	learned, err := s.learned(ctx, in.RunID(), inp.run)
	if err != nil {
		return events.Plan{}, "", nil, nil, err
	}
	msgs := prompt(inp)
	if learned != "" {
		msgs[len(msgs)-1].Content += learned
	}
	plan, usage, err := s.ask(ctx, in, msgs)
	return plan, events.PlanModePlanned, nil, usage, err
}

// maxFailureSummaries bounds the earlier runs' failures shown.
const maxFailureSummaries = 5

// learned is the prompt section with the failure summaries of earlier
// runs on the project ("" when there are none).
func (s *Service) learned(ctx context.Context, runID string, run events.Run) (string, error) {
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
	for _, f := range others {
		if b.Len() == 0 {
			b.WriteString("\nEarlier failed attempts on this repository (avoid repeating them):\n")
		}
		b.WriteString("- " + f.Intent + ": attempt " + strconv.Itoa(f.Attempt) + ": " + f.Reason + "\n")
	}
	return b.String(), nil
}
