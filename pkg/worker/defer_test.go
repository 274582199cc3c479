package worker_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/worker"
)

// A deferred event comes back after the delay without counting as a
// failure: no failed event, no dead letter.
func TestDeferHandsTheEventBackLater(t *testing.T) {
	h := newHarness(t)
	var mu sync.Mutex
	var times []time.Time
	h.start(t, worker.Config{Service: events.ServiceLibrarian, MaxDeliver: 2}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		mu.Lock()
		times = append(times, time.Now())
		n := len(times)
		mu.Unlock()
		if n == 1 {
			return nil, worker.Defer(time.Second)
		}
		return contextOut(in)
	})
	h.publish(t, requested(t, "deferred"))
	waitFor(t, "output", func() bool {
		return len(h.messages(t, events.StreamWork, events.KindContext.Subject("deferred"))) == 1
	})
	mu.Lock()
	defer mu.Unlock()
	if gap := times[1].Sub(times[0]); gap < 900*time.Millisecond {
		t.Fatalf("redelivered after %s, before the deferral of 1s", gap)
	}
	if f := h.messages(t, events.StreamWork, events.KindFailed.Subject("deferred")); len(f) != 0 {
		t.Fatalf("a deferral ended the run: %d failed events", len(f))
	}
}
