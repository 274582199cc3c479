package builder_test

import (
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go"
)

// TestConflictingDecisionsFollowStreamOrder: two decisions on one parked
// call, an approve then a reject, both stored in the work stream (their
// publishers set different Nats-Msg-Id headers, or published them more
// than the duplicate window apart). The builder handles messages
// concurrently, so the later one may be handled first; the history keeps
// the first in stream order, and the run must act on that one too.
func TestConflictingDecisionsFollowStreamOrder(t *testing.T) {
	const run = "01jconflict00000000000000000"
	p := newParking(t, run, 1)
	d, ctx := p.d, apptest.Ctx(t)
	p.requested(ctx)
	handle := func(e events.Envelope, seq uint64) ([]events.Envelope, error) { return p.handle(e, seq, 1) }
	call := p.parked(handle(p.plan, natstest.StoreEvent(t, ctx, d.JS, p.plan, p.plan.ID))).Calls[0].ID
	decide := func(data events.ApprovalDecidedData) events.Envelope {
		t.Helper()
		data.Call, data.At = call, apptest.Now().Add(time.Minute)
		e, err := events.NewKeyed(run, events.KindApprovalDecided, 1, call, "agent/ci", apptest.Now(), data)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	approve := decide(events.ApprovalDecidedData{Decision: events.DecisionApprove, By: "alice"})
	reject := decide(events.ApprovalDecidedData{Decision: events.DecisionReject, By: "mallory", Note: "no"})
	// Before them, decisions that decide nothing, in the history as in
	// the run: one that does not decode, a reject without a note, and one
	// carrying another run's request (all refused).
	subject, err := approve.NATSSubject()
	if err != nil {
		t.Fatal(err)
	}
	garbage := nats.NewMsg(subject)
	garbage.Data = []byte(`{"decision":"reject"`)
	if _, err := d.JS.PublishMsg(ctx, garbage); err != nil {
		t.Fatal(err)
	}
	natstest.StoreEvent(t, ctx, d.JS, decide(events.ApprovalDecidedData{Decision: events.DecisionReject, By: "eve"}), approve.ID+"-eve")
	natstest.StoreEvent(t, ctx, d.JS, decide(events.ApprovalDecidedData{Run: events.Run{Request: events.Requested{Request: "other", Repo: events.RepoRef{Path: "/x"}}},
		Decision: events.DecisionReject, By: "trudy", Note: "not yours"}), approve.ID+"-trudy")
	first := natstest.StoreEvent(t, ctx, d.JS, approve, approve.ID+"-alice")
	second := natstest.StoreEvent(t, ctx, d.JS, reject, reject.ID+"-mallory")

	// The later decision's handler gets there first.
	outs, err := handle(reject, second)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 || outs[0].Type != events.KindBuilt.Type() {
		t.Fatalf("the completing decision's handling published %d events, want built: %+v", len(outs), outs)
	}
	var bd events.BuiltData
	if err := events.DecodeData(outs[0], &bd); err != nil {
		t.Fatal(err)
	}
	if len(bd.Tools) == 0 || bd.Tools[0].Approval == nil {
		t.Fatalf("the built event records no decided call: %+v", bd.Tools)
	}
	if got := bd.Tools[0].Approval; got.Decision != events.DecisionApprove || got.By != "alice" {
		t.Fatalf("the run acted on %s by %s, but the first decision in the stream (the history's) is approve by alice", got.Decision, got.By)
	}
	// The earlier decision's handler, after: the run resumed once.
	if outs, err := handle(approve, first); err != nil || len(outs) != 0 {
		t.Fatalf("the earlier decision, handled after the park settled: %v, %d events", err, len(outs))
	}
}
