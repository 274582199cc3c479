package recorder

import (
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/worker"
)

// TestAnEventStoredTwiceIsRecordedOnce: across an upgrade to keyed
// message ids an output published by an older service (plain message id)
// and again by a newer one (keyed message id) is stored twice. Each copy
// is delivered with its own stream sequence; the history records the
// event once, in the order of its first copy.
func TestAnEventStoredTwiceIsRecordedOnce(t *testing.T) {
	c := newCluster(t, `{}`)
	h, d := c.process(t)
	evs := runEvents(t, "upgraded")
	seqs := c.publishAll(t, evs)
	if err := d.Claims.Admit(testCtx(t), evs[0]); err != nil {
		t.Fatal(err)
	}
	_, js := natstest.Connect(t, c.srv)
	type delivery struct {
		e   events.Envelope
		seq uint64
	}
	var all []delivery
	for i, e := range evs {
		all = append(all, delivery{e, seqs[i]})
		if i > 0 && i < len(evs)-1 {
			// The second copy, under another message id, stored later.
			all = append(all, delivery{e, natstest.StoreEvent(t, testCtx(t), js, e, e.ID+".0123456789abcdef")})
		}
	}
	for _, dl := range all {
		ctx := worker.ContextWithDelivery(testCtx(t), worker.Delivery{StreamSeq: dl.seq, Deliveries: 1})
		if _, err := h(ctx, dl.e); err != nil {
			t.Fatalf("Handle %s at %d: %v", dl.e.ID, dl.seq, err)
		}
	}
	hist := c.history(t, "upgraded")
	checkRun(t, hist, stepCount(t, evs))
	got := causes(hist)
	if len(got) != len(evs) {
		t.Fatalf("history causes %v, want the %d events once each", got, len(evs))
	}
	for i, e := range evs {
		if got[i] != e.ID {
			t.Fatalf("history causes %v, want %s at %d", got, e.ID, i)
		}
	}
}
