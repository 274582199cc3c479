package bus_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/natstest"
)

func TestCheckTimers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _, js := natstest.StartJS(t)
	if err := bus.CheckTimers(ctx, js); err == nil {
		t.Fatal("no work stream, no error")
	}
	topo := bus.Topology{}
	if err := bus.Provision(ctx, js, topo, nil); err != nil {
		t.Fatal(err)
	}
	if err := bus.CheckTimers(ctx, js); err != nil {
		t.Fatalf("provisioned: %v", err)
	}
	// A work stream from before deadlines were scheduled.
	old := topo.WorkStream()
	old.Replicas, old.Sources = 1, nil
	if _, err := js.UpdateStream(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := bus.CheckTimers(ctx, js); !errors.Is(err, bus.ErrInvalidConfig) {
		t.Fatalf("work stream without the timers source: %v", err)
	}
	// Provisioning with update repairs it.
	if err := bus.Provision(ctx, js, bus.Topology{Update: true}, nil); err != nil {
		t.Fatal(err)
	}
	if err := bus.CheckTimers(ctx, js); err != nil {
		t.Fatalf("after an update: %v", err)
	}
}
