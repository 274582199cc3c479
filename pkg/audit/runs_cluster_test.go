package audit_test

import (
	"fmt"
	"testing"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
)

// TestLatestAfterPutOnACluster: the recorder stores a run's summary (a
// call now waiting for a decision) and `codali approve`, a client of a
// follower of the runs bucket, reads it at once. Latest must return that
// summary, never the older one a lagging replica still has (approve would
// then refuse the call as not waiting). A hundred rounds on three
// servers.
func TestLatestAfterPutOnACluster(t *testing.T) {
	ctx, leader, follower := natstest.StartSplitCluster(t, "KV_"+events.BucketRuns)
	recorder, err := audit.OpenRuns(ctx, leader)
	if err != nil {
		t.Fatal(err)
	}
	reader, err := audit.OpenRuns(ctx, follower)
	if err != nil {
		t.Fatal(err)
	}
	var stale []string
	for i := range 100 {
		run := fmt.Sprintf("run-lag%d", i%10)
		s := audit.Summary{RunID: run, Status: audit.StatusRunning, LastSeq: uint64(i + 1)}
		if err := recorder.Put(ctx, s); err != nil {
			t.Fatal(err)
		}
		got, err := reader.Latest(ctx, run)
		if err != nil || got.LastSeq != s.LastSeq {
			stale = append(stale, fmt.Sprintf("%s: %d (%v), want %d", run, got.LastSeq, err, s.LastSeq))
		}
	}
	if len(stale) > 0 {
		t.Fatalf("%d of 100 summaries read right after they were stored were older: %v", len(stale), stale)
	}
}
