package builder_test

import (
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/events"
)

// TestRedeliveredDecisionRepublishesTheNextPark: the decision that
// resumes a run leads to a second park (the model asks for another call
// that needs approval); the builder stores the second park, but its
// approval_requested is not published (the publish failed, or the builder
// stopped before it). The decision is redelivered: the builder must hand
// the second park out again, or nobody learns of it and the run waits
// for its deadline.
func TestRedeliveredDecisionRepublishesTheNextPark(t *testing.T) {
	p := newParking(t, "repark", 2)
	first := p.parked(p.handle(p.plan, 1, 1))
	call := first.Calls[0].ID
	dec, err := events.NewKeyed("repark", events.KindApprovalDecided, 1, call, "agent/ci", apptest.Now(),
		events.ApprovalDecidedData{Call: call, Decision: events.DecisionApprove, By: "alice", At: apptest.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	second := p.parked(p.handle(dec, 7, 1)) // the outputs are lost: never published
	if second.Park == first.Park {
		t.Fatalf("the resumed run parked on the same call %s", second.Park)
	}
	again := p.parked(p.handle(dec, 7, 2))
	if again.Park != second.Park {
		t.Fatalf("the redelivered decision parked on %s, want the stored park %s", again.Park, second.Park)
	}
}
