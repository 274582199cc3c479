package audit_test

import (
	"reflect"
	"testing"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/rao"
)

// TestRecordChangeHeadHash: the head hash RecordChange returns (computed
// once per event, or from the loaded history after a restart or for a
// redelivery that appends nothing) is rao.Hash of the stored history's
// last event, and Change.Summary is SummaryOf the change.
func TestRecordChangeHeadHash(t *testing.T) {
	srv := startServer(t)
	steps := allSteps(t, runEvents(t, "head", policy.Default()))
	check := func(rec *audit.Recorder, s []audit.Step) {
		t.Helper()
		c, err := rec.RecordChange(testCtx(t), "head", s)
		if err != nil {
			t.Fatalf("RecordChange: %v", err)
		}
		stored := load(t, srv.store(t), "head")
		want, err := rao.Hash(stored[len(stored)-1])
		if err != nil {
			t.Fatal(err)
		}
		if c.HeadHash != want {
			t.Fatalf("head hash %s, want %s", c.HeadHash, want)
		}
		if got, want := c.Summary(), audit.SummaryOf(c.State, c.History); !reflect.DeepEqual(got, want) {
			t.Fatalf("Change.Summary() = %+v, want %+v", got, want)
		}
	}
	first := newRecorder(t, srv.store(t), 3, 0)
	for _, s := range steps[:3] {
		check(first, s)
	}
	check(first, steps[1]) // redelivered: nothing appended
	second := newRecorder(t, srv.store(t), 3, 0)
	check(second, steps[2]) // restarted, redelivered: from the loaded history
	for _, s := range steps[3:] {
		check(second, s)
	}
}
