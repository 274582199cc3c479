package recorder

import (
	"sync"
	"testing"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/worker"
)

// TestSummaryOfConcurrentEventsIsTheLatest: one process handles the
// request of a run (which claims it, as the librarian does first in the
// pipeline) and then every later event of the run at once (as its
// consumer delivers them to concurrent handlers). The summaries are written outside the
// run's lock, so their updates cross; the stored one must be the whole
// history's, and the history complete and verifying.
func TestSummaryOfConcurrentEventsIsTheLatest(t *testing.T) {
	c := newCluster(t, `{}`)
	h, _ := c.process(t)
	for _, run := range []string{"cs1", "cs2", "cs3"} {
		evs := runEvents(t, run)
		seqs := c.publishAll(t, evs)
		if err := handle(t, h, evs[0]); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, len(evs))
		for i, e := range evs[1:] {
			i++
			wg.Go(func() {
				ctx := worker.ContextWithDelivery(testCtx(t), worker.Delivery{StreamSeq: seqs[i], Deliveries: 1})
				_, errs[i] = h(ctx, e)
			})
		}
		wg.Wait()
		for i, err := range errs {
			// A conflict is handed back for redelivery: deliver again.
			if err != nil {
				if err := handle(t, h, evs[i]); err != nil {
					t.Fatalf("Handle %s: %v", evs[i].ID, err)
				}
			}
		}
		hist := c.history(t, run)
		checkRun(t, hist, stepCount(t, evs))
		s := c.summary(t, run)
		if s.Status != audit.StatusPassed || s.LastSeq != hist[len(hist)-1].Seq || s.Events != len(hist) {
			t.Errorf("run %s: summary %+v after %d history events (last seq %d)", run, s, len(hist), hist[len(hist)-1].Seq)
		}
	}
}
