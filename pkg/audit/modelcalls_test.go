package audit_test

import (
	"testing"

	"github.com/codali-dev/codali/pkg/events"
)

func TestFoldKeepsModelCalls(t *testing.T) {
	const run = "calls"
	r := testRun("hello")
	ref := func(h string, step int) events.ExchangeRef {
		return events.ExchangeRef{Hash: h, Step: step, Ref: events.ArtifactRef{Bucket: "b", Name: "exchanges/" + h, Size: 1, SHA256: h}}
	}
	plan := envelope(t, run, events.KindPlan, 1, "codali/architect", events.PlanData{Run: r, Plan: testPlan, Exchanges: []events.ExchangeRef{ref("a", 1)}})
	built := envelope(t, run, events.KindBuilt, 1, "codali/builder", events.BuiltData{Run: r, Plan: testPlan, Exchanges: []events.ExchangeRef{ref("b", 1), ref("c", 2)}})
	failed := envelope(t, run, events.KindFailed, 2, "codali/architect", events.VerdictData{Run: r, Status: events.StatusFailed, Phase: events.ServiceArchitect,
		Integrity: events.IntegrityRed, Reason: "model rejected", Exchanges: []events.ExchangeRef{{Hash: "d", Step: 1, Failed: true, Ref: ref("d", 1).Ref}}})
	st := apply(t, run, plan, built, failed)
	if len(st.Attempts) != 2 {
		t.Fatalf("attempts %+v", st.Attempts)
	}
	one := st.Attempts[0].ModelCalls
	if len(one) != 3 || one[0].Phase != events.ServiceArchitect || one[0].Hash != "a" || one[2].Phase != events.ServiceBuilder || one[2].Step != 2 {
		t.Fatalf("attempt 1 model calls %+v", one)
	}
	two := st.Attempts[1].ModelCalls
	if len(two) != 1 || !two[0].Failed || two[0].Phase != events.ServiceArchitect {
		t.Fatalf("attempt 2 model calls %+v", two)
	}
}
