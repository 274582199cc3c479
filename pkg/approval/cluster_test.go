package approval_test

import (
	"fmt"
	"sync"
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
	ctx, leader, follower := natstest.StartSplitCluster(t, "KV_"+events.BucketParks)
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

// TestConcurrentDecisionsOnACluster: two builders decide the two calls of
// one park at the same time. One compare-and-set loses and is retried: a
// replicated bucket reports the conflict with another code than a single
// server (10164, not 10071), and it must still be taken for a conflict,
// not a failure. Fifty rounds on three servers.
func TestConcurrentDecisionsOnACluster(t *testing.T) {
	ctx, cl := natstest.StartProvisionedCluster(t, 3)
	leader, follower := cl.Split(t, ctx, "KV_"+events.BucketParks)
	a, b := openWith(t, ctx, leader), openWith(t, ctx, follower)
	for i := range 50 {
		run := fmt.Sprintf("run-race%d", i)
		if err := a.Park(ctx, park(t, run, 1, "a1-s1-c1", "a1-s1-c2"), 0); err != nil {
			t.Fatalf("Park: %v", err)
		}
		var wg sync.WaitGroup
		res := make([]approval.Result, 2)
		errs := make([]error, 2)
		for j, s := range []*approval.Store{a, b} {
			wg.Go(func() {
				res[j], errs[j] = s.Decide(ctx, decision(t, run, 1, fmt.Sprintf("a1-s1-c%d", j+1), "ann"), 0)
			})
		}
		wg.Wait()
		for j, err := range errs {
			if err != nil {
				t.Fatalf("round %d, decision %d: %v", i, j+1, err)
			}
		}
		if res[0].Settled == res[1].Settled {
			t.Fatalf("round %d: settled %v and %v, want exactly one", i, res[0].Settled, res[1].Settled)
		}
	}
}
