package natsauth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natsauth"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/rao/raostore"
	"github.com/nats-io/nats.go/jetstream"
)

// TestPhasesCheckARedeliveredHandlingsOutputs: with tracing on, a phase
// handling a redelivered event looks its outputs up in the work stream
// (the subject's last message) and then in the run's audit history. Every
// phase identity may make both reads, read only: without them each such
// handling waited out the look-up's timeout and logged permission
// violations (the architect and critic lacked the stream read, every
// phase the history read).
func TestPhasesCheckARedeliveredHandlingsOutputs(t *testing.T) {
	c := start(t)
	prov := c.as(t, natsauth.Provisioner)
	if err := bus.Provision(ctx(t, 30*time.Second), prov.js, bus.Topology{Update: true}, nil); err != nil {
		t.Fatalf("provision: %v", err)
	}
	// The recorder stores a one-event history for the run.
	rec := c.as(t, events.ServiceRecorder)
	recStore, err := raostore.Open(ctx(t, 10*time.Second), rec.js)
	if err != nil {
		t.Fatalf("open the history as the recorder: %v", err)
	}
	ev, err := rao.NewChain(rao.Builder{RunID: "run-rd"}).Next([]byte(`{"status":"running"}`), rao.KindRun, "req-1", "requested", rao.Meta{}, time.Now())
	if err != nil {
		t.Fatalf("build an event: %v", err)
	}
	if _, err := recStore.Append(ctx(t, 10*time.Second), ev, 0); err != nil {
		t.Fatalf("append as the recorder: %v", err)
	}
	subject := events.KindPlan.Subject("run-rd")
	for _, name := range []string{events.ServiceLibrarian, events.ServiceArchitect, events.ServiceBuilder, events.ServiceCritic} {
		id := c.as(t, name)
		st, err := id.js.Stream(ctx(t, 10*time.Second), events.StreamWork)
		if err != nil {
			t.Fatalf("%s: bind the work stream: %v", name, err)
		}
		if _, err := st.GetLastMsgForSubject(ctx(t, 10*time.Second), subject); !errors.Is(err, jetstream.ErrMsgNotFound) {
			t.Errorf("%s looking up an output in the work stream: %v, want not found (errors %v)", name, err, id.errs)
		}
		store, err := raostore.Open(ctx(t, 10*time.Second), id.js)
		if err != nil {
			t.Fatalf("%s: open the history: %v (errors %v)", name, err, id.errs)
		}
		got, _, err := store.Load(ctx(t, 10*time.Second), "run-rd")
		if err != nil || len(got) != 1 || got[0].Cause != "req-1" {
			t.Errorf("%s reading the run's history: %d events, %v (errors %v)", name, len(got), err, id.errs)
		}
		id.denied(t, "write history", events.RAOSubject("run-rd"), func(c context.Context) error {
			_, err := id.js.Publish(c, events.RAOSubject("run-rd"), []byte(`{}`))
			return err
		})
	}
}
