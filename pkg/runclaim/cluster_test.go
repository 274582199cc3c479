package runclaim_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/runclaim"
)

// TestAdmitRightAfterTheClaimOnACluster: the librarian claims a run and
// the next phase, a client of a follower of the claims bucket, admits
// the run's next event at once. It must find the claim: a read answered
// by a replica that has not applied it yet would refuse the event for
// good (no request was accepted for the run). A request losing the claim
// to an equal one checks the winner the same way. A hundred rounds on
// three servers.
func TestAdmitRightAfterTheClaimOnACluster(t *testing.T) {
	ctx, leader, follower := natstest.StartSplitCluster(t, "KV_"+events.BucketRequests)
	claimer, err := runclaim.Open(ctx, leader)
	if err != nil {
		t.Fatal(err)
	}
	// Another service's store; every run id is new to it, so none of its
	// claims is cached.
	checker, err := runclaim.Open(ctx, follower)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	req := events.Requested{Request: "fix it", Repo: events.RepoRef{Path: "/srv/own"}}
	var refused, unclaimed []string
	for i := range 100 {
		run := fmt.Sprintf("run-lag%d", i)
		r, err := events.New(run, events.KindRequested, 1, "agent/own", now, req)
		if err != nil {
			t.Fatal(err)
		}
		if err := claimer.Admit(ctx, r); err != nil {
			t.Fatalf("claim %s: %v", run, err)
		}
		next := r
		if i%2 == 0 {
			if next, err = events.New(run, events.KindContext, 1, "codali/librarian", now, events.ContextData{Run: events.Run{Request: req}}); err != nil {
				t.Fatal(err)
			}
		}
		switch err := checker.Admit(ctx, next); {
		case errors.Is(err, events.ErrConflict):
			refused = append(refused, run)
		case err != nil:
			unclaimed = append(unclaimed, run)
		}
	}
	if len(refused)+len(unclaimed) > 0 {
		t.Fatalf("right after their claim, %d of 100 events were refused (%v) and %d requests found no claim (%v)",
			len(refused), refused, len(unclaimed), unclaimed)
	}
}
