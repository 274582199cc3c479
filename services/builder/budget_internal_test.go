package builder

import (
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/approval"
	"github.com/codali-dev/codali/pkg/events"
)

func TestMeterParksExtendsAndStops(t *testing.T) {
	run := events.Run{Spend: events.SpendByPhase{events.ServiceArchitect: {Tokens: 20}}}
	m := &meter{run: run, limit: events.Budget{Tokens: 10}}
	st := &loopState{}
	stop, parked := m.check(1, st, nil)
	if stop != "" || len(parked) != 1 || parked[0].ID != "a1-s1-budget" || parked[0].Tool != ToolBudget ||
		!strings.HasPrefix(parked[0].Warnings[0], "budget_exhausted: tokens 20 of 10") {
		t.Fatalf("park: %q %+v", stop, parked)
	}
	decide := func(d events.ApprovalDecidedData) map[string]approval.Decision {
		return map[string]approval.Decision{"a1-s1-budget": {Data: d}}
	}
	// An extension that is enough lets the loop go on, once.
	st = &loopState{}
	if stop, parked := m.check(1, st, decide(events.ApprovalDecidedData{Decision: events.DecisionApprove, Extend: &events.Budget{Tokens: 100}})); stop != "" || parked != nil || st.Extra.Tokens != 100 {
		t.Fatalf("extended: %q %+v %+v", stop, parked, st)
	}
	if stop, parked := m.check(1, st, decide(events.ApprovalDecidedData{Decision: events.DecisionApprove, Extend: &events.Budget{Tokens: 100}})); stop != "" || parked != nil || st.Extra.Tokens != 100 {
		t.Fatalf("an extension applied twice: %q %+v %+v", stop, parked, st)
	}
	// Too small an extension stops the loop instead of parking again on
	// the same call.
	st = &loopState{}
	if stop, _ := m.check(1, st, decide(events.ApprovalDecidedData{Decision: events.DecisionApprove, Extend: &events.Budget{Tokens: 5}})); !strings.Contains(stop, "after an extension") {
		t.Fatalf("small extension: %q", stop)
	}
	// A reject stops the loop.
	st = &loopState{}
	if stop, _ := m.check(1, st, decide(events.ApprovalDecidedData{Decision: events.DecisionReject, By: "ann", Note: "too dear"})); !strings.Contains(stop, "not extended (too dear by ann)") {
		t.Fatalf("reject: %q", stop)
	}
	// The run carries this attempt's spend and extensions on.
	st = &loopState{Spent: events.Spend{Tokens: 7}, Extra: events.Budget{Tokens: 100}}
	out := m.charge(run, st)
	if out.Spend[events.ServiceBuilder].Tokens != 7 || out.Spend[events.ServiceArchitect].Tokens != 20 || out.BudgetExtra.Tokens != 100 || run.Spend[events.ServiceBuilder].Tokens != 0 {
		t.Fatalf("charge: %+v (input changed: %+v)", out, run)
	}
}
