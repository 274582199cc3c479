package recorder

import (
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/worker"
)

// TestPoisonEventIsNotListedUnfolded: an event that does not fold (any
// agent can publish one on any run) fails for good and is never folded; it
// is not kept as the run's event still to fold, which every later event
// of the run would look up for (the stream-order lookup skips it anyway),
// and which would pile up, one per such event, for the process's life.
func TestPoisonEventIsNotListedUnfolded(t *testing.T) {
	c := newCluster(t, `{}`)
	count := lookups(t, c)
	h, _ := c.process(t)
	run := "poison1"
	evs := runEvents(t, run)
	poison := env(t, run, events.KindContext, 2, "agent/x", map[string]any{"run": 5})
	all := []events.Envelope{evs[0], poison, evs[1]}
	seqs := c.publishAll(t, all)
	if err := deliverAt(testCtx(t), h, all[0], seqs[0]); err != nil {
		t.Fatal(err)
	}
	if err := deliverAt(testCtx(t), h, poison, seqs[1]); !worker.IsPermanent(err) {
		t.Fatalf("the poison event: err = %v, want a permanent failure", err)
	}
	n := count(run)
	if err := deliverAt(testCtx(t), h, all[2], seqs[2]); err != nil {
		t.Fatal(err)
	}
	if got := count(run) - n; got != 0 {
		t.Errorf("the context after a poison event: %d message gets, want none", got)
	}
}
