package builder_test

import (
	"context"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go"
)

// storeEvent publishes e into the work stream under the Nats-Msg-Id
// msgID and returns its stream sequence.
func storeEvent(t *testing.T, ctx context.Context, d *app.Deps, e events.Envelope, msgID string) uint64 {
	t.Helper()
	raw, err := e.Encode(d.Config.Events.MaxEventBytes)
	if err != nil {
		t.Fatal(err)
	}
	subject, err := e.NATSSubject()
	if err != nil {
		t.Fatal(err)
	}
	m := nats.NewMsg(subject)
	m.Data = raw
	m.Header.Set(events.HeaderMsgID, msgID)
	ack, err := d.JS.PublishMsg(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if ack.Duplicate {
		t.Fatalf("%s under %s was de-duplicated", e.ID, msgID)
	}
	return ack.Sequence
}

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
	req, err := events.New(run, events.KindRequested, 1, "agent/ci", apptest.Now(), p.request)
	if err != nil {
		t.Fatal(err)
	}
	storeEvent(t, ctx, d, req, req.ID)
	if err := d.Claims.Admit(ctx, req); err != nil {
		t.Fatal(err)
	}
	handle := func(e events.Envelope, seq uint64) ([]events.Envelope, error) { return p.handle(e, seq, 1) }
	call := p.parked(handle(p.plan, storeEvent(t, ctx, d, p.plan, p.plan.ID))).Calls[0].ID
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
	storeEvent(t, ctx, d, decide(events.ApprovalDecidedData{Decision: events.DecisionReject, By: "eve"}), approve.ID+"-eve")
	storeEvent(t, ctx, d, decide(events.ApprovalDecidedData{Run: events.Run{Request: events.Requested{Request: "other", Repo: events.RepoRef{Path: "/x"}}},
		Decision: events.DecisionReject, By: "trudy", Note: "not yours"}), approve.ID+"-trudy")
	first := storeEvent(t, ctx, d, approve, approve.ID+"-alice")
	second := storeEvent(t, ctx, d, reject, reject.ID+"-mallory")

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
