package raostore

import (
	"context"
	"fmt"
	"github.com/codali-dev/codali/pkg/bus"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/rao"
)

// benchHistory stores a 200-event run and returns the store.
func benchHistory(b *testing.B) (*Store, context.Context) {
	b.Helper()
	_, _, js := natstest.StartJS(b)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	b.Cleanup(cancel)
	if err := bus.Provision(ctx, js, bus.Topology{}, []string{}); err != nil {
		b.Fatalf("provision: %v", err)
	}
	st, err := Open(ctx, js)
	if err != nil {
		b.Fatalf("Open: %v", err)
	}
	c := rao.NewChain(rao.Builder{RunID: "run-1"})
	var last uint64
	for i, s := range states(200) {
		ev, err := c.Next(s, rao.KindRun, fmt.Sprintf("evt-%d", i), "", rao.Meta{}, t0)
		if err != nil {
			b.Fatalf("Next: %v", err)
		}
		if last, err = st.Append(ctx, ev, last); err != nil {
			b.Fatalf("Append: %v", err)
		}
	}
	return st, ctx
}

// BenchmarkLoad200 loads a 200-event history from an embedded server.
func BenchmarkLoad200(b *testing.B) {
	st, ctx := benchHistory(b)
	for b.Loop() {
		evs, _, err := st.Load(ctx, "run-1")
		if err != nil || len(evs) != 200 {
			b.Fatalf("Load: %d events, %v", len(evs), err)
		}
	}
}

// BenchmarkAppend measures one checked append on an embedded server.
func BenchmarkAppend(b *testing.B) {
	_, _, js := natstest.StartJS(b)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	b.Cleanup(cancel)
	if err := bus.Provision(ctx, js, bus.Topology{}, []string{}); err != nil {
		b.Fatalf("provision: %v", err)
	}
	st, err := Open(ctx, js)
	if err != nil {
		b.Fatalf("Open: %v", err)
	}
	c := rao.NewChain(rao.Builder{RunID: "run-1"})
	sts := states(64)
	var last uint64
	i := 0
	for b.Loop() {
		ev, err := c.Next(sts[i%len(sts)], rao.KindRun, fmt.Sprintf("evt-%d", i), "", rao.Meta{}, t0)
		if err != nil {
			b.Fatalf("Next: %v", err)
		}
		if last, err = st.Append(ctx, ev, last); err != nil {
			b.Fatalf("Append: %v", err)
		}
		i++
	}
}
