package builder_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/nats-io/nats.go/jetstream"
)

// unrecorded is a run parked by a handling whose publish hooks never ran:
// the builder stopped (or its park store write failed) before it recorded
// where the park's approval_requested is stored.
type unrecorded struct {
	parking
	run  string
	park events.Envelope
	call string
}

// parkUnrecorded parks run on its plan (stored in the work stream) and
// drops the handling's publish hooks.
func parkUnrecorded(t *testing.T, run string) unrecorded {
	t.Helper()
	return parkUnrecordedWith(t, newParking(t, run, 1), run)
}

// parkUnrecordedWith is parkUnrecorded with the parking builder p of run.
func parkUnrecordedWith(t *testing.T, p parking, run string) unrecorded {
	t.Helper()
	ctx := apptest.Ctx(t)
	p.requested(ctx)
	hctx, _ := worker.WithPublishHooks(ctx) // the hooks are never called
	outs, err := p.handleIn(hctx, p.plan, natstest.StoreEvent(t, ctx, p.d.JS, p.plan, p.plan.ID), 1)
	call := p.parked(outs, err).Calls[0].ID
	return unrecorded{parking: p, run: run, park: outs[0], call: call}
}

// decision stores a decision on the parked call and returns it with its
// stream sequence.
func (u unrecorded) decision(t *testing.T, decision, by, note string) (events.Envelope, uint64) {
	t.Helper()
	e, err := events.NewKeyed(u.run, events.KindApprovalDecided, 1, u.call, "agent/ci", apptest.Now(),
		events.ApprovalDecidedData{Call: u.call, Decision: decision, By: by, Note: note, At: apptest.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	return e, natstest.StoreEvent(t, apptest.Ctx(t), u.d.JS, e, e.ID+"-"+by)
}

// actedOn fails the test unless outs is the built event of a run that
// acted on a decision of by.
func actedOn(t *testing.T, outs []events.Envelope, err error, decision, by string) {
	t.Helper()
	if err != nil || len(outs) != 1 || outs[0].Type != events.KindBuilt.Type() {
		t.Fatalf("the settling decision: %v, %+v, want built", err, outs)
	}
	var bd events.BuiltData
	if err := events.DecodeData(outs[0], &bd); err != nil {
		t.Fatal(err)
	}
	if len(bd.Tools) == 0 || bd.Tools[0].Approval == nil {
		t.Fatalf("the built event records no decided call: %+v", bd.Tools)
	}
	if got := bd.Tools[0].Approval; got.Decision != decision || got.By != by {
		t.Fatalf("the run acted on %s by %s, want %s by %s", got.Decision, got.By, decision, by)
	}
}

// TestADecisionAfterAnUnrecordedRequestIsTaken: the runtime stored the
// park's approval_requested, then the builder stopped before recording
// its sequence. The history shows the park; a human decides. The
// decision must be taken at once (the history records it), not handed
// back until it is dead-lettered, which ends the run failed. A guessed
// decision stored before the approval_requested still decides nothing.
func TestADecisionAfterAnUnrecordedRequestIsTaken(t *testing.T) {
	u := parkUnrecorded(t, "01junrecorded0000000000000000")
	guessed, guessedSeq := u.decision(t, events.DecisionApprove, "mallory", "")
	natstest.StoreEvent(t, apptest.Ctx(t), u.d.JS, u.park, outputMsgID(t, u.d, u.park.ID)) // the runtime's publish
	alice, aliceSeq := u.decision(t, events.DecisionReject, "alice", "not go.mod")

	if outs, err := u.handle(guessed, guessedSeq, 1); err != nil || len(outs) != 0 {
		t.Fatalf("a decision stored before the park's approval_requested: %v, %d events, want none", err, len(outs))
	}
	outs, err := u.handle(alice, aliceSeq, 1)
	actedOn(t, outs, err, events.DecisionReject, "alice")
	requestedCopies(t, u, 1)
}

// TestADecisionBeforeAnUnpublishedRequestDecidesNothing: the builder
// stored the park and stopped before the runtime published its
// approval_requested. A decision (a guessed call id) stored now comes
// before any approval_requested of the park in the stream, so the
// history records it as refused: it decides nothing, without waiting.
// The park's approval_requested is then in the stream, and a decision
// stored after it is taken.
func TestADecisionBeforeAnUnpublishedRequestDecidesNothing(t *testing.T) {
	u := parkUnrecorded(t, "01junpublished000000000000000")
	guessed, guessedSeq := u.decision(t, events.DecisionApprove, "mallory", "")
	if outs, err := u.handle(guessed, guessedSeq, 1); err != nil || len(outs) != 0 {
		t.Fatalf("a decision stored before the park's approval_requested: %v, %d events, want none", err, len(outs))
	}
	seqs := requestedCopies(t, u, 1)
	if seqs[0] < guessedSeq {
		t.Fatalf("the park's approval_requested is stored at %d, before the guessed decision at %d", seqs[0], guessedSeq)
	}
	alice, aliceSeq := u.decision(t, events.DecisionReject, "alice", "not go.mod")
	outs, err := u.handle(alice, aliceSeq, 1)
	actedOn(t, outs, err, events.DecisionReject, "alice")
}

// TestADecisionLongAfterAnUnrecordedRequestIsTaken: the runtime stored
// the park's approval_requested, the builder stopped before recording its
// sequence, and the first decision comes after the stream's duplicate
// window: the park published again is stored as a second copy, after the
// decision, while the history holds the first, before it. The decision is
// the one the history takes, and the run acts on it.
func TestADecisionLongAfterAnUnrecordedRequestIsTaken(t *testing.T) {
	const run = "01jlate0000000000000000000000"
	p := newParking(t, run, 1)
	var later atomic.Int64
	p.d.Now = func() time.Time { return apptest.Now().Add(time.Duration(later.Load())) }
	u := parkUnrecordedWith(t, p, run)
	// The copy stored first, under another message id: the stream has
	// forgotten it by the time the park is published again.
	natstest.StoreEvent(t, apptest.Ctx(t), u.d.JS, u.park, u.park.ID+"-first")
	alice, aliceSeq := u.decision(t, events.DecisionReject, "alice", "not go.mod")
	later.Store(int64(bus.DuplicateWindow + time.Minute))
	outs, err := u.handle(alice, aliceSeq, 1)
	actedOn(t, outs, err, events.DecisionReject, "alice")
}

// requestedCopies fails the test unless the work stream holds n copies of
// the park's approval_requested, and returns their sequences.
func requestedCopies(t *testing.T, u unrecorded, n int) []uint64 {
	t.Helper()
	ctx := apptest.Ctx(t)
	st, err := u.d.JS.Stream(ctx, events.StreamWork)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []uint64
	subject := events.KindApprovalRequested.Subject(u.run)
	for next := uint64(1); ; {
		m, err := st.GetMsg(ctx, next, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if m.Header.Get(events.HeaderMsgID) == outputMsgID(t, u.d, u.park.ID) {
			seqs = append(seqs, m.Sequence)
		}
		next = m.Sequence + 1
	}
	if len(seqs) != n {
		t.Fatalf("copies of the park's approval_requested in the stream: %v, want %d", seqs, n)
	}
	return seqs
}

// TestAFailedRecordOfTheRequestDoesNotFailTheParking: the runtime stored
// the park's approval_requested, but its sequence cannot be recorded (the
// park store fails). The parking handling still completes: failing it
// would hand the plan out again and run its tool loop (its model calls,
// which may not park again) once more, under an approval_requested the
// history already shows. A decision learns the sequence itself.
func TestAFailedRecordOfTheRequestDoesNotFailTheParking(t *testing.T) {
	const run = "01jfailedrecord00000000000000"
	p := newParking(t, run, 1)
	ctx := apptest.Ctx(t)
	hctx, hooks := worker.WithPublishHooks(ctx)
	outs, err := p.handleIn(hctx, p.plan, natstest.StoreEvent(t, ctx, p.d.JS, p.plan, p.plan.ID), 1)
	p.parked(outs, err)
	seq := natstest.StoreEvent(t, ctx, p.d.JS, outs[0], outputMsgID(t, p.d, outs[0].ID))
	if err := p.d.JS.DeleteKeyValue(ctx, events.BucketParks); err != nil {
		t.Fatal(err)
	}
	if err := hooks.Published(ctx, outs[0].ID, seq); err != nil {
		t.Fatalf("a failed record of the park's approval_requested failed the parking handling: %v", err)
	}
}

// TestNoParkIsStoredWithoutItsDeadline: a decision that finds its park's
// approval_requested unrecorded publishes the park from the park store.
// So the park is stored last, once its deadline is scheduled: a parking
// handling that cannot schedule the deadline fails (and is handled
// again) without storing a park a decision would publish, deadline-less.
func TestNoParkIsStoredWithoutItsDeadline(t *testing.T) {
	const run = "01jnodeadline0000000000000000"
	p := newParking(t, run, 1)
	ctx := apptest.Ctx(t)
	if err := p.d.JS.DeleteStream(ctx, events.StreamTimers); err != nil {
		t.Fatal(err)
	}
	hctx, _ := worker.WithPublishHooks(ctx)
	if outs, err := p.handleIn(hctx, p.plan, natstest.StoreEvent(t, ctx, p.d.JS, p.plan, p.plan.ID), 1); err == nil {
		t.Fatalf("parked without scheduling the deadline: %+v", outs)
	}
	kv, err := p.d.JS.KeyValue(ctx, events.BucketParks)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Get(ctx, run); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Fatalf("a park was stored without its deadline (%v)", err)
	}
}
