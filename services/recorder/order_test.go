package recorder

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/nats-io/nats.go"
)

// publishAll stores the run's events in the work stream, in order, and
// returns each one's stream sequence.
func (c cluster) publishAll(t testing.TB, evs []events.Envelope) []uint64 {
	t.Helper()
	_, js := natstest.Connect(t, c.srv)
	seqs := make([]uint64, len(evs))
	for i, e := range evs {
		subject, err := e.NATSSubject()
		if err != nil {
			t.Fatal(err)
		}
		data, err := e.Encode(0)
		if err != nil {
			t.Fatal(err)
		}
		m := nats.NewMsg(subject)
		m.Data = data
		m.Header.Set(events.HeaderMsgID, e.ID)
		ack, err := js.PublishMsg(testCtx(t), m)
		if err != nil {
			t.Fatal(err)
		}
		seqs[i] = ack.Sequence
	}
	return seqs
}

// causes lists the event ids a history was made from, in history order,
// once each (the steps of one event have causes <event id>#<step>).
func causes(h []rao.Event) []string {
	var out []string
	for _, e := range h {
		id, _, _ := strings.Cut(e.Cause, "#")
		if len(out) == 0 || out[len(out)-1] != id {
			out = append(out, id)
		}
	}
	return out
}

// TestHistoryFollowsStreamOrder: the recorder gets a run's events in the
// reverse of the order in which they were stored in the work stream (as
// concurrent handlers or a redelivery can); the history still lists them
// in stream order — the demo once recorded the plan before the context it
// was made from.
func TestHistoryFollowsStreamOrder(t *testing.T) {
	c := newCluster(t, `{}`)
	h, d := c.process(t)
	evs := runEvents(t, "ordered")
	seqs := c.publishAll(t, evs)
	// The librarian claims the run's request before any later event exists.
	if err := d.Claims.Admit(testCtx(t), evs[0]); err != nil {
		t.Fatal(err)
	}
	for i := len(evs) - 1; i >= 0; i-- {
		ctx := worker.ContextWithDelivery(testCtx(t), worker.Delivery{StreamSeq: seqs[i], Deliveries: 1})
		if _, err := h(ctx, evs[i]); err != nil {
			t.Fatalf("Handle %s: %v", evs[i].ID, err)
		}
	}
	hist := c.history(t, "ordered")
	checkRun(t, hist, stepCount(t, evs))
	got := causes(hist)
	if len(got) != len(evs) {
		t.Fatalf("history causes %v, want the %d events", got, len(evs))
	}
	for i, e := range evs {
		if got[i] != e.ID {
			t.Fatalf("history event order %v, want stream order (event %d is %s)", got, i, e.ID)
		}
	}
}

// TestPlanBeforeContextInTwoProcesses: the architect's plan reaches one
// recorder process while the librarian's context is still with another;
// the context is folded first and the late delivery of the context adds
// nothing.
func TestPlanBeforeContextInTwoProcesses(t *testing.T) {
	c := newCluster(t, `{}`)
	a, _ := c.process(t)
	b, _ := c.process(t)
	evs := runEvents(t, "twoproc")[:3] // requested, context, plan
	seqs := c.publishAll(t, evs)
	deliver := func(h worker.Handler, i int) {
		t.Helper()
		ctx := worker.ContextWithDelivery(testCtx(t), worker.Delivery{StreamSeq: seqs[i], Deliveries: 1})
		if _, err := h(ctx, evs[i]); err != nil {
			t.Fatalf("Handle %s: %v", evs[i].ID, err)
		}
	}
	deliver(a, 0)
	deliver(b, 2) // the plan, while a still holds the context
	deliver(a, 1)
	hist := c.history(t, "twoproc")
	checkRun(t, hist, stepCount(t, evs))
	want := []string{evs[0].ID, evs[1].ID, evs[2].ID}
	if got := causes(hist); len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("history order %v, want %v", got, want)
	}
}

// TestRefusalWaitsForUnreadPredecessors: a hostile event of a run (a plan
// carrying another request) arrives while the run's earlier events in the
// work stream cannot be read. Its refusal must not be recorded ahead of
// them: the delivery fails (and is redelivered), as it does for any event
// whose predecessors are unreadable, so the history keeps stream order.
func TestRefusalWaitsForUnreadPredecessors(t *testing.T) {
	c := newCluster(t, `{}`)
	h, _ := c.process(t)
	const run = "refusedorder"
	evs := runEvents(t, run)[:3] // requested, context, plan
	var pd events.PlanData
	if err := json.Unmarshal(evs[2].Data, &pd); err != nil {
		t.Fatal(err)
	}
	pd.Run.Request = events.Requested{Request: "steal", Repo: events.RepoRef{Path: "/srv/evil"}}
	hostile := env(t, run, events.KindPlan, 1, "agent/evil", pd)
	hostile.ID = "forged-plan"
	all := append(append([]events.Envelope{}, evs...), hostile)
	seqs := c.publishAll(t, all)
	deliver := func(i int) error {
		t.Helper()
		ctx := worker.ContextWithDelivery(testCtx(t), worker.Delivery{StreamSeq: seqs[i], Deliveries: 1})
		_, err := h(ctx, all[i])
		return err
	}
	if err := deliver(0); err != nil {
		t.Fatal(err)
	}
	// The work stream cannot be read for a while (here: it is gone); the
	// run's claim and history are answered from memory.
	_, js := natstest.Connect(t, c.srv)
	if err := js.DeleteStream(testCtx(t), events.StreamWork); err != nil {
		t.Fatal(err)
	}
	if err := deliver(3); err == nil || worker.IsPermanent(err) {
		t.Errorf("hostile event with unreadable predecessors: err = %v, want a transient error", err)
	}
	for _, i := range []int{1, 2, 3} { // their own deliveries, then the redelivery
		if err := deliver(i); err != nil {
			t.Fatalf("Handle %s: %v", all[i].ID, err)
		}
	}
	want := []string{evs[0].ID, evs[1].ID, evs[2].ID, hostile.ID}
	if got := causes(c.history(t, run)); !slices.Equal(got, want) {
		t.Fatalf("history order %v, want %v (the refusal last)", got, want)
	}
}
