package builder_test

import (
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/worker"
)

// TestAGuessedDecisionBeforeTheParkIsPublishedDecidesNothing: call ids
// are predictable (a1-s1-c1), so a decision can be published after the
// plan that parks the run and before the builder's approval_requested is
// stored. The history, folding the run's events in stream order, records
// it as a decision on a call not parked yet; the run must not act on it
// either. The runtime reports where it stored the approval_requested
// (worker.OnPublished); a decision handled before that publishes the
// park again to learn it. After it, the first decision stored after the
// approval_requested is the one the run acts on.
func TestAGuessedDecisionBeforeTheParkIsPublishedDecidesNothing(t *testing.T) {
	const run = "01jguessed000000000000000000"
	p := newParking(t, run, 1)
	d, ctx := p.d, apptest.Ctx(t)
	p.requested(ctx)
	hctx, hooks := worker.WithPublishHooks(ctx)
	outs, err := p.handleIn(hctx, p.plan, natstest.StoreEvent(t, ctx, d.JS, p.plan, p.plan.ID), 1)
	call := p.parked(outs, err).Calls[0].ID
	decide := func(data events.ApprovalDecidedData) events.Envelope {
		t.Helper()
		data.Call, data.At = call, apptest.Now().Add(time.Minute)
		e, err := events.NewKeyed(run, events.KindApprovalDecided, 1, call, "agent/ci", apptest.Now(), data)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	guessed := decide(events.ApprovalDecidedData{Decision: events.DecisionApprove, By: "mallory"})
	guessedSeq := natstest.StoreEvent(t, ctx, d.JS, guessed, guessed.ID+"-mallory")
	// The runtime stores the approval_requested; the guessed decision is
	// handled before the runtime reports where (the builder publishes the
	// park again to learn it, and the copy is dropped as a duplicate).
	requestedSeq := natstest.StoreEvent(t, ctx, d.JS, outs[0], outputMsgID(t, d, outs[0].ID))
	if outs, err := p.handle(guessed, guessedSeq, 1); err != nil || len(outs) != 0 {
		t.Fatalf("a decision stored before the park's approval_requested: %v, %d events, want none", err, len(outs))
	}
	// The runtime reports where it stored the approval_requested.
	if err := hooks.Published(ctx, outs[0].ID, requestedSeq); err != nil {
		t.Fatal(err)
	}
	if outs, err := p.handle(guessed, guessedSeq, 2); err != nil || len(outs) != 0 {
		t.Fatalf("the guessed decision, redelivered: %v, %d events, want none", err, len(outs))
	}
	alice := decide(events.ApprovalDecidedData{Decision: events.DecisionReject, By: "alice", Note: "not go.mod"})
	outs, err = p.handle(alice, natstest.StoreEvent(t, ctx, d.JS, alice, alice.ID+"-alice"), 1)
	actedOn(t, outs, err, events.DecisionReject, "alice")
}
