package approval_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/codali-dev/codali/pkg/approval"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// admitFunc is an approval.Admitter.
type admitFunc func(context.Context, events.Envelope) error

func (f admitFunc) Admit(ctx context.Context, e events.Envelope) error { return f(ctx, e) }

// workStream starts a server with the work stream and every service's
// consumer (so the stream keeps what is stored).
func workStream(t *testing.T) (context.Context, jetstream.JetStream) {
	t.Helper()
	return natstest.StartProvisioned(t)
}

func openWith(t *testing.T, ctx context.Context, js jetstream.JetStream, opts ...approval.Option) *approval.Store {
	t.Helper()
	s, err := approval.Open(ctx, js, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func verdict(t *testing.T, run, call, decision, by, note string) events.Envelope {
	t.Helper()
	e, err := events.NewKeyed(run, events.KindApprovalDecided, 1, call, "test", t0,
		events.ApprovalDecidedData{Call: call, Decision: decision, By: by, Note: note})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestTheFirstDecisionInTheStreamStands: an approve then a reject on one
// call, both stored. Whichever message is handled first, by whichever
// store (builders running side by side, or one restarted), the call is
// approved, and the park settles once.
func TestTheFirstDecisionInTheStreamStands(t *testing.T) {
	ctx, js := workStream(t)
	for _, order := range []string{"later first", "earlier first", "concurrent"} {
		t.Run(order, func(t *testing.T) {
			run := "first" + map[string]string{"later first": "1", "earlier first": "2", "concurrent": "3"}[order]
			s := openWith(t, ctx, js)
			if err := s.Park(ctx, park(t, run, 1, "a1-s1-c1"), 0); err != nil {
				t.Fatal(err)
			}
			approve := verdict(t, run, "a1-s1-c1", events.DecisionApprove, "alice", "")
			reject := verdict(t, run, "a1-s1-c1", events.DecisionReject, "mallory", "no")
			a := natstest.StoreEvent(t, ctx, js, approve, approve.ID+"-a")
			b := natstest.StoreEvent(t, ctx, js, reject, reject.ID+"-b")
			var results [2]approval.Result
			var errs [2]error
			decide := func(i int, e events.Envelope, seq uint64) {
				// Each handling opens its own store, as the builder does.
				results[i], errs[i] = openWith(t, ctx, js).Decide(ctx, e, seq)
			}
			switch order {
			case "later first":
				decide(1, reject, b)
				decide(0, approve, a)
			case "earlier first":
				decide(0, approve, a)
				decide(1, reject, b)
			default:
				var wg sync.WaitGroup
				wg.Go(func() { decide(0, approve, a) })
				wg.Go(func() { decide(1, reject, b) })
				wg.Wait()
			}
			if errs[0] != nil || errs[1] != nil {
				t.Fatal(errs)
			}
			if results[0].Settled == results[1].Settled {
				t.Fatalf("settled by the approve %v, by the reject %v: want exactly one", results[0].Settled, results[1].Settled)
			}
			settler, seq, msg := results[0], a, approve
			if results[1].Settled {
				settler, seq, msg = results[1], b, reject
			}
			if got := settler.Decided["a1-s1-c1"].Data; got.Decision != events.DecisionApprove || got.By != "alice" {
				t.Fatalf("the run resumes under %s by %s, want the first decision stored (approve by alice)", got.Decision, got.By)
			}
			// The settling message, redelivered (after a restart), settles
			// it again under the same decision; the other does not.
			again, err := openWith(t, ctx, js).Decide(ctx, msg, seq)
			if err != nil || !again.Settled || again.Decided["a1-s1-c1"].Data.By != "alice" {
				t.Fatalf("redelivered settling decision: %+v, %v", again, err)
			}
		})
	}
}

// TestADecisionBeforeTheParkDecidesNothing: a decision stored before the
// message whose handling parked the run (its publisher guessed the call
// id) comes before the park's approval_requested; the history records it
// as a decision on a call never parked, and it decides nothing here
// either, even handled after the park was stored.
func TestADecisionBeforeTheParkDecidesNothing(t *testing.T) {
	ctx, js := workStream(t)
	s := openWith(t, ctx, js)
	early := verdict(t, "early", "a1-s1-c1", events.DecisionApprove, "eve", "")
	seq := natstest.StoreEvent(t, ctx, js, early, early.ID)
	// The message whose handling parks the run (standing for its plan).
	parking := verdict(t, "planner", "a1-s1-c1", events.DecisionApprove, "x", "")
	if err := s.Park(ctx, park(t, "early", 1, "a1-s1-c1"), natstest.StoreEvent(t, ctx, js, parking, parking.ID)); err != nil {
		t.Fatal(err)
	}
	r, err := s.Decide(ctx, early, seq)
	if err != nil || r.Park.Event.ID != "" || r.Settled {
		t.Fatalf("a decision stored before the park: %+v, %v", r, err)
	}
	late := verdict(t, "early", "a1-s1-c1", events.DecisionReject, "alice", "no")
	r, err = s.Decide(ctx, late, natstest.StoreEvent(t, ctx, js, late, late.ID+"-again"))
	if err != nil || !r.Settled || r.Decided["a1-s1-c1"].Data.By != "alice" {
		t.Fatalf("the decision after the park: %+v, %v", r, err)
	}
}

// TestEarlierDecisionsThatDecideNothingAreSkipped: before the decision
// handled, the stream holds decisions on the same call that the worker
// and the recorder refuse: one that does not decode, an invalid one (a
// reject without a note), one its run's guard refuses, and one whose data
// names another call than its id.
func TestEarlierDecisionsThatDecideNothingAreSkipped(t *testing.T) {
	ctx, js := workStream(t)
	refused := verdict(t, "skip", "a1-s1-c1", events.DecisionApprove, "trudy", "")
	guard := admitFunc(func(_ context.Context, e events.Envelope) error {
		var d events.ApprovalDecidedData
		if err := events.DecodeData(e, &d); err != nil {
			return err
		}
		if d.By == "trudy" {
			return events.ErrConflict
		}
		return nil
	})
	s := openWith(t, ctx, js, approval.WithAdmitter(guard), approval.WithMaxEventBytes(1<<20))
	if err := s.Park(ctx, park(t, "skip", 1, "a1-s1-c1"), 0); err != nil {
		t.Fatal(err)
	}
	m := nats.NewMsg(events.KindApprovalDecided.Subject("skip"))
	m.Data = []byte(`{"id":`)
	if _, err := js.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
	invalid := verdict(t, "skip", "a1-s1-c1", events.DecisionReject, "eve", "")
	natstest.StoreEvent(t, ctx, js, invalid, invalid.ID+"-eve")
	natstest.StoreEvent(t, ctx, js, refused, refused.ID+"-trudy")
	wrongKey := verdict(t, "skip", "a1-s1-c2", events.DecisionApprove, "oscar", "")
	wrongKey.ID = invalid.ID // data naming another call than its id
	natstest.StoreEvent(t, ctx, js, wrongKey, wrongKey.ID+"-oscar")
	other := verdict(t, "skip", "a1-s1-c2", events.DecisionApprove, "bob", "")
	natstest.StoreEvent(t, ctx, js, other, other.ID)
	dec := verdict(t, "skip", "a1-s1-c1", events.DecisionReject, "alice", "no")
	r, err := s.Decide(ctx, dec, natstest.StoreEvent(t, ctx, js, dec, dec.ID+"-alice"))
	if err != nil || !r.Settled {
		t.Fatalf("%+v, %v", r, err)
	}
	if got := r.Decided["a1-s1-c1"].Data; got.By != "alice" {
		t.Fatalf("the call is decided by %s, want alice (every earlier decision decides nothing)", got.By)
	}
}

// TestDecideWithoutTheWorkStreamStaysOpen: when the earlier decisions
// cannot be read (the stream is gone, a read fails, the run's guard
// cannot answer), Decide returns the error and records nothing, so the
// redelivered decision decides the call later.
func TestDecideWithoutTheWorkStreamStaysOpen(t *testing.T) {
	ctx, js := workStream(t)
	earlier := verdict(t, "fail", "a1-s1-c1", events.DecisionApprove, "alice", "")
	natstest.StoreEvent(t, ctx, js, earlier, earlier.ID+"-a")
	second := verdict(t, "fail", "a1-s1-c1", events.DecisionApprove, "bob", "")
	natstest.StoreEvent(t, ctx, js, second, second.ID+"-b")
	dec := verdict(t, "fail", "a1-s1-c1", events.DecisionReject, "carol", "no")
	seq := natstest.StoreEvent(t, ctx, js, dec, dec.ID+"-c")
	if err := openWith(t, ctx, js).Park(ctx, park(t, "fail", 1, "a1-s1-c1"), 0); err != nil {
		t.Fatal(err)
	}
	unavailable := errors.New("claims bucket unreachable")

	t.Run("the guard cannot answer", func(t *testing.T) {
		s := openWith(t, ctx, js, approval.WithAdmitter(admitFunc(func(context.Context, events.Envelope) error { return unavailable })))
		if _, err := s.Decide(ctx, dec, seq); !errors.Is(err, unavailable) {
			t.Fatalf("got %v, want the guard's error", err)
		}
	})
	t.Run("a read fails", func(t *testing.T) {
		// The guard skips the first earlier decision and the handling is
		// cancelled before the next is read.
		hctx, cancel := context.WithCancel(ctx)
		defer cancel()
		s := openWith(t, hctx, js, approval.WithAdmitter(admitFunc(func(context.Context, events.Envelope) error {
			cancel()
			return events.ErrConflict
		})))
		if _, err := s.Decide(hctx, dec, seq); !errors.Is(err, approval.ErrStream) {
			t.Fatalf("got %v, want %v", err, approval.ErrStream)
		}
	})
	t.Run("the stream is gone", func(t *testing.T) {
		if err := js.DeleteStream(ctx, events.StreamWork); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := bus.Provision(ctx, js, bus.Topology{}, nil); err != nil {
				t.Fatal(err)
			}
		})
		if _, err := openWith(t, ctx, js).Decide(ctx, dec, seq); !errors.Is(err, approval.ErrStream) {
			t.Fatalf("got %v, want %v", err, approval.ErrStream)
		}
	})
	// Nothing was recorded: a store that can read the stream (here the
	// messages are gone with it, so the handled decision is the first it
	// finds) decides the call now.
	r, err := openWith(t, ctx, js).Decide(ctx, dec, seq)
	if err != nil || !r.Settled || r.Decided["a1-s1-c1"].Data.By != "carol" {
		t.Fatalf("after the failures: %+v, %v", r, err)
	}
}
