package builder

import (
	"fmt"
	"slices"

	"github.com/codali-dev/codali/pkg/approval"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
)

// ToolBudget names the pseudo tool call a run parks on when it reaches
// its budget; `codali budget extend` approves it with an extension.
const ToolBudget = "budget"

// ReasonBudgetExhausted is the reason of a budget park.
const ReasonBudgetExhausted = "budget_exhausted"

// meter holds a run's budget while the builder works on it.
type meter struct {
	run     events.Run
	limit   events.Budget
	pricing llm.Pricing
}

func budgetCallID(attempt, step int) string { return events.BudgetCallID(attempt, step) }

// check runs before each model call: with the run's spend (earlier phases
// and attempts, plus this attempt's) at its budget, it parks the run on a
// budget call, or — once that call is decided — applies the extension or
// stops the loop when the budget was not extended.
func (m *meter) check(attempt int, st *loopState, decided map[string]approval.Decision) (string, []parkedCall) {
	id := budgetCallID(attempt, st.Step+1)
	if d, ok := decided[id]; ok && !slices.Contains(st.Used, id) {
		st.Used = append(st.Used, id)
		if d.Data.Decision != events.DecisionApprove {
			return fmt.Sprintf("stopped: budget exhausted and not extended (%s by %s)", d.Data.Note, d.Data.By), nil
		}
		if d.Data.Extend != nil {
			st.Extra = events.Budget{Tokens: st.Extra.Tokens + d.Data.Extend.Tokens, Cost: st.Extra.Cost + d.Data.Extend.Cost}
		}
	}
	spent := m.run.Spend.Total().Plus(st.Spent)
	exhausted, what := m.limit.Add(st.Extra).Exhausted(spent)
	if !exhausted {
		return "", nil
	}
	if slices.Contains(st.Used, id) {
		// Extended, and still not enough for another step.
		return "stopped: budget exhausted (" + what + ") after an extension", nil
	}
	return "", []parkedCall{{ID: id, Step: st.Step + 1, Tool: ToolBudget, Args: []byte(`{}`),
		Targets: []string{what}, Warnings: []string{ReasonBudgetExhausted + ": " + what}}}
}

// charge returns run with this attempt's spend and extensions added: what
// the built (or park) event carries on.
func (m *meter) charge(run events.Run, st *loopState) events.Run {
	run.Spend = run.Spend.With(events.ServiceBuilder, st.Spent)
	if st.Extra != (events.Budget{}) {
		extra := st.Extra
		if run.BudgetExtra != nil {
			extra = events.Budget{Tokens: extra.Tokens + run.BudgetExtra.Tokens, Cost: extra.Cost + run.BudgetExtra.Cost}
		}
		run.BudgetExtra = &extra
	}
	return run
}
