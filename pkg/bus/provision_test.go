package bus_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
)

func TestProvisionCreateOnlyLeavesExistingAlone(t *testing.T) {
	_, _, js := natstest.StartJS(t)
	ctx := context.Background()
	if err := bus.Provision(ctx, js, bus.Topology{Update: true, WorkMaxAge: time.Hour}, nil); err != nil {
		t.Fatal(err)
	}
	maxAge := func() time.Duration {
		s, err := js.Stream(ctx, events.StreamWork)
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return info.Config.MaxAge
	}
	// A service with other settings only creates what is missing.
	if err := bus.Provision(ctx, js, bus.Topology{WorkMaxAge: 2 * time.Hour}, []string{events.ServiceBuilder}); err != nil {
		t.Fatal(err)
	}
	if got := maxAge(); got != time.Hour {
		t.Fatalf("create-only provisioning changed the stream: max age %s", got)
	}
	// The operator's update applies the new configuration.
	if err := bus.Provision(ctx, js, bus.Topology{Update: true, WorkMaxAge: 2 * time.Hour}, nil); err != nil {
		t.Fatal(err)
	}
	if got := maxAge(); got != 2*time.Hour {
		t.Fatalf("update provisioning did not apply: max age %s", got)
	}
	for _, s := range events.Services() {
		if _, err := js.Consumer(ctx, events.StreamWork, s); err != nil {
			t.Errorf("consumer %s: %v", s, err)
		}
	}
	for _, b := range []string{events.BucketPMState, events.BucketRuns} {
		if _, err := js.KeyValue(ctx, b); err != nil {
			t.Errorf("bucket %s: %v", b, err)
		}
	}
	if _, err := js.ObjectStore(ctx, events.BucketArtifacts); err != nil {
		t.Errorf("object store: %v", err)
	}
}

func TestProvisionRejectsBadTopology(t *testing.T) {
	_, _, js := natstest.StartJS(t)
	err := bus.Provision(context.Background(), js, bus.Topology{Replicas: 9}, nil)
	if !errors.Is(err, bus.ErrInvalidConfig) {
		t.Fatalf("err = %v", err)
	}
	err = bus.Provision(context.Background(), js, bus.Topology{}, []string{"chef"})
	if !errors.Is(err, bus.ErrInvalidConfig) {
		t.Fatalf("unknown service: %v", err)
	}
}

// TestStreamsReadThroughTheirLeader: the work and history streams are read
// by sequence and last subject by code that decides on what it finds, so
// neither may allow direct gets (any replica, a lagging one too, would
// answer them).
func TestStreamsReadThroughTheirLeader(t *testing.T) {
	_, _, js := natstest.StartJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := bus.Provision(ctx, js, bus.Topology{Update: true}, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{events.StreamWork, events.StreamRAO} {
		s, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if c := s.CachedInfo().Config; c.AllowDirect || c.MirrorDirect {
			t.Errorf("stream %s allows direct gets", name)
		}
	}
}

// TestProvisionKeepsTheMessageIDKey: the first provisioning stores the
// services' message id key; later ones (create-only or update) keep it,
// so every service's message ids stay the same.
func TestProvisionKeepsTheMessageIDKey(t *testing.T) {
	_, _, js := natstest.StartJS(t)
	ctx := context.Background()
	if err := bus.Provision(ctx, js, bus.Topology{}, nil); err != nil {
		t.Fatal(err)
	}
	idOf := func() string {
		t.Helper()
		key, err := bus.MsgIDKey(ctx, js)
		if err != nil {
			t.Fatalf("the message id key: %v", err)
		}
		id, err := key.For("run1.built.1")
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	first := idOf()
	for _, topo := range []bus.Topology{{}, {Update: true}} {
		if err := bus.Provision(ctx, js, topo, nil); err != nil {
			t.Fatal(err)
		}
		if got := idOf(); got != first {
			t.Fatalf("provisioning again (update %v) changed the key: %s, then %s", topo.Update, first, got)
		}
	}
	kv, err := js.KeyValue(ctx, events.BucketKeys)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := kv.Status(ctx); err != nil || st.TTL() != 0 {
		t.Fatalf("the key bucket expires its key: %v %v", st, err)
	}
}
