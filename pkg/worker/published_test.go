package worker_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/worker"
)

// TestOnPublishedGetsTheStoredSequence: a handler asks for its output's
// stream sequence. The first handling's hook fails after the output was
// stored, so the input is redelivered and handled again; the output is
// then dropped as a duplicate and the hook gets the sequence of the
// message stored first. Only then is the input acknowledged.
func TestOnPublishedGetsTheStoredSequence(t *testing.T) {
	h := newHarness(t)
	var (
		calls atomic.Int32
		mu    sync.Mutex
		seqs  []uint64
	)
	h.start(t, worker.Config{Service: events.ServiceLibrarian}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		outs, err := contextOut(in)
		if err != nil {
			return nil, err
		}
		n := calls.Add(1)
		if !worker.OnPublished(ctx, outs[0].ID, func(_ context.Context, seq uint64) error {
			mu.Lock()
			seqs = append(seqs, seq)
			mu.Unlock()
			if n == 1 {
				return errors.New("the record could not be written")
			}
			return nil
		}) {
			t.Error("OnPublished reported no hooks in a runtime's handling")
		}
		return outs, nil
	})
	h.publish(t, requested(t, "hooked"))
	waitFor(t, "settled", func() bool { return calls.Load() == 2 && h.settledAck(t, events.ServiceLibrarian) })
	stored := h.messages(t, events.StreamWork, events.KindContext.Subject("hooked"))
	if len(stored) != 1 {
		t.Fatalf("context events stored = %d, want 1", len(stored))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seqs) != 2 || seqs[0] != stored[0].Sequence || seqs[1] != stored[0].Sequence {
		t.Fatalf("hook sequences = %v, want [%d %d] (the duplicate reports the first message's)", seqs, stored[0].Sequence, stored[0].Sequence)
	}
}

// TestOnPublishedOnlyForReturnedOutputs: a hook for an event the handler
// does not return is never called, and hooks run in registration order
// up to the first error.
func TestOnPublishedOnlyForReturnedOutputs(t *testing.T) {
	ctx, hooks := worker.WithPublishHooks(context.Background())
	var got []string
	worker.OnPublished(ctx, "a", func(context.Context, uint64) error { got = append(got, "a1"); return nil })
	worker.OnPublished(ctx, "a", func(context.Context, uint64) error { got = append(got, "a2"); return errors.New("no") })
	worker.OnPublished(ctx, "a", func(context.Context, uint64) error { got = append(got, "a3"); return nil })
	worker.OnPublished(ctx, "b", func(context.Context, uint64) error { got = append(got, "b"); return nil })
	if err := hooks.Published(ctx, "a", 7); err == nil {
		t.Fatal("an error of a hook was not returned")
	}
	if err := hooks.Published(ctx, "c", 8); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "a1" || got[1] != "a2" {
		t.Fatalf("hooks called = %v, want [a1 a2]", got)
	}
	if worker.OnPublished(context.Background(), "a", func(context.Context, uint64) error { return nil }) {
		t.Fatal("OnPublished reported hooks in a context that has none")
	}
}

// TestOnPublishedNotCalledForADroppedOutput: a handler whose output is
// not published (it returned none after all) gets no call, and its input
// is acknowledged as usual.
func TestOnPublishedNotCalledForADroppedOutput(t *testing.T) {
	h := newHarness(t)
	var called, handled atomic.Int32
	h.start(t, worker.Config{Service: events.ServiceLibrarian}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		handled.Add(1)
		worker.OnPublished(ctx, "never-returned", func(context.Context, uint64) error { called.Add(1); return nil })
		return nil, nil
	})
	h.publish(t, requested(t, "dropped"))
	waitFor(t, "settled", func() bool { return handled.Load() == 1 && h.settledAck(t, events.ServiceLibrarian) })
	if called.Load() != 0 {
		t.Fatal("a hook ran for an output that was never published")
	}
}
