package architect

import (
	"github.com/codali-dev/codali/pkg/budget"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/worker"
)

// withinBudget runs before the architect's model call: a run whose spend
// has reached its budget (options.budget or limits.maxRun*, raised by
// `codali budget extend`) gets no new plan. Only the builder can park a
// run on its budget, so here the run ends failed with the reason — a
// retry after a budget park that was rejected or extended too little
// would otherwise re-plan past the budget on every attempt.
func (s *Service) withinBudget(attempt int, run events.Run) error {
	exhausted, what := budget.Limit(s.d.Config.Limits, run).Exhausted(run.Spend.Total())
	if !exhausted {
		return nil
	}
	return worker.Permanentf("budget exhausted before the architect's plan for attempt %d: %s (extend it while the builder waits on it: codali budget extend)", attempt, what)
}
