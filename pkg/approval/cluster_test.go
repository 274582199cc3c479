package approval_test

import (
	"fmt"
	"testing"

	"github.com/codali-dev/codali/pkg/approval"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
)

// TestDecideRightAfterTheParkOnACluster: a builder parks a run and
// another builder, a client of a follower of the parks bucket, handles
// the decision at once. The decision must find the park: a read answered
// by a replica that has not applied the park yet would drop it (the run
// then waits for its deadline). A hundred rounds on three servers.
func TestDecideRightAfterTheParkOnACluster(t *testing.T) {
	ctx, cl := natstest.StartProvisionedCluster(t, 3)
	cl.WaitDirectGets(t, "KV_"+events.BucketParks)
	leader, follower := cl.Split(t, ctx, "KV_"+events.BucketParks)
	parker, decider := openWith(t, ctx, leader), openWith(t, ctx, follower, approval.WithMaxEventBytes(1<<20))
	missed := 0
	for i := range 100 {
		run := fmt.Sprintf("run-lag%d", i)
		p := park(t, run, 1, "a1-s1-c1")
		if err := parker.Park(ctx, p, 0); err != nil {
			t.Fatalf("Park: %v", err)
		}
		res, err := decider.Decide(ctx, decision(t, run, 1, "a1-s1-c1", "ann"), 0)
		if err != nil {
			t.Fatalf("Decide: %v", err)
		}
		if !res.Settled || res.Park.Event.ID != p.ID {
			missed++
		}
	}
	if missed > 0 {
		t.Fatalf("%d of 100 decisions made right after their park found no park", missed)
	}
}
