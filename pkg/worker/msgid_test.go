package worker_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/msgid"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/nats-io/nats.go"
)

// TestOutputIDTakenFirstDoesNotSuppressTheOutput: an agent stores a
// message (on a subject agents may publish) under the plain id of a run's
// next output before the service publishes it. The output is stored all
// the same, under its keyed message id.
func TestOutputIDTakenFirstDoesNotSuppressTheOutput(t *testing.T) {
	h := newHarness(t)
	const run = "taken"
	squat := nats.NewMsg(events.KindApprovalDecided.Subject(run))
	squat.Data = []byte(`{}`)
	squat.Header.Set(events.HeaderMsgID, run+"."+string(events.KindContext)+".1")
	if _, err := h.js.PublishMsg(h.ctx, squat); err != nil {
		t.Fatal(err)
	}
	h.start(t, worker.Config{Service: events.ServiceLibrarian}, func(_ context.Context, in events.Envelope) ([]events.Envelope, error) {
		return contextOut(in)
	})
	h.publish(t, requested(t, run))
	var stored int
	waitFor(t, "the context stored", func() bool {
		stored = len(h.messages(t, events.StreamWork, events.KindContext.Subject(run)))
		return stored > 0
	})
	m := h.messages(t, events.StreamWork, events.KindContext.Subject(run))[0]
	want, err := h.key.For(run + ".context.1")
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Header.Get(events.HeaderMsgID); got != want {
		t.Fatalf("the context's message id is %q, want %q", got, want)
	}
}

// TestEventMsgWithoutKeyPublishesNothing: no message is made for a
// service event without the key, rather than one under a predictable id.
func TestEventMsgWithoutKeyPublishesNothing(t *testing.T) {
	e, err := events.New("run1", events.KindContext, 1, "codali/librarian", time.Now(), map[string]string{"x": "y"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := worker.EventMsg(e, 0, msgid.Key{}); !errors.Is(err, msgid.ErrNoKey) {
		t.Fatalf("err = %v, want ErrNoKey", err)
	}
	key, err := msgid.Random()
	if err != nil {
		t.Fatal(err)
	}
	m, err := worker.EventMsg(e, 0, key)
	if err != nil {
		t.Fatal(err)
	}
	if id := m.Header.Get(events.HeaderMsgID); !strings.HasPrefix(id, e.ID+".") || id == e.ID+"." {
		t.Fatalf("message id %q does not extend the event id %q", id, e.ID)
	}
}
