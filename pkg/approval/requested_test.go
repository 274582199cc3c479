package approval_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/approval"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go/jetstream"
)

// TestADecisionBeforeTheParksRequestDecidesNothing: the window between
// the message whose handling parks a run and the park's
// approval_requested. A decision with a guessed call id stored in it
// comes before the approval_requested in the stream, so the history
// records it as a decision on a call not parked yet. For a park that
// awaits its approval_requested's sequence, the run agrees: no decision
// counts until the sequence is known, then the guessed one decides
// nothing, and the first decision stored after the approval_requested
// settles the call, even when an earlier guessed one is still in the
// stream.
func TestADecisionBeforeTheParksRequestDecidesNothing(t *testing.T) {
	ctx, js := workStream(t)
	s := openWith(t, ctx, js)
	const run = "window"
	p := parkedAwaiting(t, ctx, js, s, run)
	guessed := verdict(t, run, "a1-s1-c1", events.DecisionApprove, "mallory", "")
	guessedSeq := natstest.StoreEvent(t, ctx, js, guessed, guessed.ID+"-mallory")

	// Handled before the approval_requested is known: not taken yet.
	_, err := s.Decide(ctx, guessed, guessedSeq)
	var unsent *approval.UnsentError
	if !errors.Is(err, approval.ErrUnsent) || !errors.As(err, &unsent) || unsent.Park.ID != p.ID {
		t.Fatalf("a decision before the park's request is known: %v, want %v naming park %s", err, approval.ErrUnsent, p.ID)
	}
	requestedSeq := natstest.StoreEvent(t, ctx, js, p, p.ID)
	if err := s.SetRequested(ctx, p, requestedSeq); err != nil {
		t.Fatal(err)
	}
	// A sequence reported again (a copy stored after the duplicate
	// window) does not move it.
	if err := s.SetRequested(ctx, p, requestedSeq+100); err != nil {
		t.Fatal(err)
	}

	// Redelivered, the guessed decision decides nothing.
	r, err := s.Decide(ctx, guessed, guessedSeq)
	if err != nil || r.Park.Event.ID != "" || r.Settled {
		t.Fatalf("a decision stored before the park's request: %+v, %v", r, err)
	}
	// The approver's decision, after the request, is the one that
	// stands, although the guessed one on the same call is earlier in
	// the stream.
	alice := verdict(t, run, "a1-s1-c1", events.DecisionReject, "alice", "no")
	aliceSeq := natstest.StoreEvent(t, ctx, js, alice, alice.ID+"-alice")
	late := verdict(t, run, "a1-s1-c1", events.DecisionApprove, "bob", "")
	lateSeq := natstest.StoreEvent(t, ctx, js, late, late.ID+"-bob")
	// The later one is handled first: the first after the request stands.
	r, err = s.Decide(ctx, late, lateSeq)
	if err != nil || !r.Settled {
		t.Fatalf("the decisions after the park's request: %+v, %v", r, err)
	}
	if got := r.Decided["a1-s1-c1"].Data; got.By != "alice" {
		t.Fatalf("the call is decided by %s, want alice (the first decision stored after the park's request)", got.By)
	}
	if _, err := s.Decide(ctx, alice, aliceSeq); err != nil {
		t.Fatal(err)
	}
}

// TestSetRequestedOnlyForTheAwaitingPark: the sequence is recorded only
// on the run's current park, when it awaits one; a park stored with Park
// (a parker that reports none) keeps counting decisions from its parking
// message on.
func TestSetRequestedOnlyForTheAwaitingPark(t *testing.T) {
	ctx, js := workStream(t)
	s := openWith(t, ctx, js)
	const run = "plain"
	parking := verdict(t, "planner", "a1-s1-c1", events.DecisionApprove, "x", "")
	p := park(t, run, 1, "a1-s1-c1")
	if err := s.Park(ctx, p, natstest.StoreEvent(t, ctx, js, parking, parking.ID)); err != nil {
		t.Fatal(err)
	}
	dec := verdict(t, run, "a1-s1-c1", events.DecisionApprove, "alice", "")
	decSeq := natstest.StoreEvent(t, ctx, js, dec, dec.ID)
	requestedSeq := natstest.StoreEvent(t, ctx, js, p, p.ID)
	if err := s.SetRequested(ctx, p, requestedSeq); err != nil {
		t.Fatal(err)
	}
	r, err := s.Decide(ctx, dec, decSeq)
	if err != nil || !r.Settled {
		t.Fatalf("a park stored without awaiting its request: %+v, %v", r, err)
	}

	// Another run's park is not this one: nothing is recorded on it.
	other := park(t, "other", 1, "a1-s1-c1")
	if err := s.ParkAwaiting(ctx, other, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRequested(ctx, park(t, "other", 1, "a1-s2-c1"), 5); err != nil {
		t.Fatal(err)
	}
	od := verdict(t, "other", "a1-s1-c1", events.DecisionApprove, "alice", "")
	if _, err := s.Decide(ctx, od, natstest.StoreEvent(t, ctx, js, od, od.ID)); !errors.Is(err, approval.ErrUnsent) {
		t.Fatalf("a sequence reported for another park was taken: %v", err)
	}
}

// TestASequenceReportedLateCountsFromTheParkingMessage: the sequence of a
// park's approval_requested is reported long after the park was made (the
// builder stopped after the runtime published it and came back after the
// stream's duplicate window, or the first decision came then and
// published the park again). The copy just stored is then not a
// duplicate, though an earlier copy may be in the history, with
// decisions after it: taking the new copy's sequence would refuse a
// decision the history took. The park stops awaiting instead, and counts
// decisions from the parking message on; within the window the sequence
// is taken.
func TestASequenceReportedLateCountsFromTheParkingMessage(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after time.Duration
		taken bool
	}{
		{"within the duplicate window", 5 * time.Minute, false},
		{"after the duplicate window", bus.DuplicateWindow, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, js := workStream(t)
			s := openWith(t, ctx, js, approval.WithClock(func() time.Time { return t0.Add(tc.after) }))
			const run = "late"
			p := parkedAwaiting(t, ctx, js, s, run)
			natstest.StoreEvent(t, ctx, js, p, p.ID+"-first") // the copy stored first
			alice := verdict(t, run, "a1-s1-c1", events.DecisionReject, "alice", "no")
			aliceSeq := natstest.StoreEvent(t, ctx, js, alice, alice.ID)
			if err := s.SetRequested(ctx, p, natstest.StoreEvent(t, ctx, js, p, p.ID)); err != nil {
				t.Fatal(err)
			}
			r, err := s.Decide(ctx, alice, aliceSeq)
			if err != nil {
				t.Fatal(err)
			}
			if r.Settled != tc.taken {
				t.Fatalf("the decision stored between the two copies: settled %v, want %v (%+v)", r.Settled, tc.taken, r)
			}
			if tc.taken && r.Decided["a1-s1-c1"].Data.By != "alice" {
				t.Fatalf("decided by %+v, want alice", r.Decided)
			}
		})
	}
}

// TestADecisionAtTheRequestedSequenceDecidesNothing: the sequence
// recorded for a park's approval_requested is where the stream says a
// message with the park's id is stored. A decision stored there (an
// agent published it under the park's message id first, so the park was
// dropped as its duplicate) is not a decision after the park: it decides
// nothing, whichever message is handled first, as a later decision's scan
// (which starts after the recorded sequence) does not take it either.
func TestADecisionAtTheRequestedSequenceDecidesNothing(t *testing.T) {
	ctx, js := workStream(t)
	s := openWith(t, ctx, js)
	const run = "taken"
	p := parkedAwaiting(t, ctx, js, s, run)
	taken := verdict(t, run, "a1-s1-c1", events.DecisionApprove, "mallory", "")
	takenSeq := natstest.StoreEvent(t, ctx, js, taken, p.ID)
	if err := s.SetRequested(ctx, p, takenSeq); err != nil { // the duplicate's acknowledgement
		t.Fatal(err)
	}
	r, err := s.Decide(ctx, taken, takenSeq)
	if err != nil || r.Park.Event.ID != "" || r.Settled {
		t.Fatalf("the decision stored under the park's message id: %+v, %v, want nothing", r, err)
	}
}

// parkedAwaiting stores, in the work stream, a message standing for the
// plan that parks run, and parks run on call a1-s1-c1 with s.ParkAwaiting
// from it; it returns the park.
func parkedAwaiting(t *testing.T, ctx context.Context, js jetstream.JetStream, s *approval.Store, run string) events.Envelope {
	t.Helper()
	parking := verdict(t, "planner", "a1-s1-c1", events.DecisionApprove, "x", "") // stands for the plan
	p := park(t, run, 1, "a1-s1-c1")
	if err := s.ParkAwaiting(ctx, p, natstest.StoreEvent(t, ctx, js, parking, parking.ID)); err != nil {
		t.Fatal(err)
	}
	return p
}
