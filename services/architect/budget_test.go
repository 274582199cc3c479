package architect_test

import (
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/codali-dev/codali/services/architect"
)

// spentRetry is a retry event (to the architect, or to the builder when
// toBuilder) of a run that has spent tokens, with extra added to its budget.
func spentRetry(t *testing.T, d *app.Deps, run string, tokens int, extra *events.Budget, toBuilder bool) events.Envelope {
	t.Helper()
	prev, err := architect.ParsePlan(plan1)
	if err != nil {
		t.Fatal(err)
	}
	var r events.RetryData
	if err := events.DecodeData(retryEvent(t, d, run, 2, prev), &r); err != nil {
		t.Fatal(err)
	}
	r.Run.Spend = events.SpendByPhase{}.With(events.ServiceArchitect, events.Spend{Tokens: tokens})
	r.Run.BudgetExtra = extra
	if toBuilder {
		r.RetryPhase = events.RetryBuilder
	}
	in, err := events.New(run, events.KindRetry, 2, "codali/critic", t0, r)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestRetryPastTheBudgetEndsTheRun: the architect checks the run's budget
// before its model call; a run at its budget gets no new plan (the run
// ends failed), one whose budget was extended above its spend does, and
// a retry that reuses the plan makes no model call and is not stopped.
func TestRetryPastTheBudgetEndsTheRun(t *testing.T) {
	d := newDeps(t, `{"limits": {"maxRunTokens": 100}}`, script(t, answer{2, 0, plan2, false}))
	h := handler(t, d)

	_, err := h(testCtx(t), spentRetry(t, d, "run-over", 120, nil, false))
	if !worker.IsPermanent(err) || !strings.Contains(err.Error(), "budget exhausted before the architect's plan for attempt 2: tokens 120 of 100") {
		t.Fatalf("over budget: err %v, want a permanent budget failure", err)
	}
	_, err = h(testCtx(t), spentRetry(t, d, "run-short", 120, &events.Budget{Tokens: 10}, false))
	if !worker.IsPermanent(err) || !strings.Contains(err.Error(), "tokens 120 of 110") {
		t.Fatalf("extended too little: err %v, want a permanent budget failure", err)
	}

	pd := decodePlan(t, mustHandle(t, h, spentRetry(t, d, "run-extended", 120, &events.Budget{Tokens: 100}, false)), "run-extended", 2)
	if pd.Mode != events.PlanModePlanned {
		t.Errorf("extended run: mode %q, want a new plan", pd.Mode)
	}
	pd = decodePlan(t, mustHandle(t, h, spentRetry(t, d, "run-reuse", 120, nil, true)), "run-reuse", 2)
	if pd.Mode != events.PlanModeReused {
		t.Errorf("retry to the builder: mode %q, want the reused plan", pd.Mode)
	}
}
