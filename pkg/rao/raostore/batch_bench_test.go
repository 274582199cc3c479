package raostore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/nats-io/nats.go/jetstream"
)

// benchAppend measures storing events of 3 steps each (a builder's change
// with two gated tool calls): as one atomic batch, or one by one.
func benchAppend(b *testing.B, js jetstream.JetStream, replicas int, atomic bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := bus.Provision(ctx, js, bus.Topology{Replicas: replicas}, []string{}); err != nil {
		b.Fatalf("Provision: %v", err)
	}
	store, err := Open(ctx, js)
	if err != nil {
		b.Fatalf("Open: %v", err)
	}
	store.atomic.Store(atomic)
	const steps = 3
	sts := states(steps * b.N)
	c, err := rao.Resume(rao.Builder{RunID: "run-bench"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	sealed := make([]rao.Sealed, len(sts))
	for i, st := range sts {
		if sealed[i], err = c.NextSealed(st, rao.KindRun, fmt.Sprintf("c-%d", i), "step", rao.Meta{PolicyHash: "p"}, t0.Add(time.Duration(i)*time.Second)); err != nil {
			b.Fatal(err)
		}
	}
	var last uint64
	b.ResetTimer()
	for i := range b.N {
		if last, err = store.AppendBatch(ctx, sealed[i*steps:(i+1)*steps], last); err != nil {
			b.Fatalf("AppendBatch: %v", err)
		}
	}
}

func BenchmarkAppendBatchR1(b *testing.B) {
	for _, atomic := range []bool{true, false} {
		b.Run(fmt.Sprintf("atomic=%v", atomic), func(b *testing.B) {
			_, _, js := natstest.StartJS(b)
			benchAppend(b, js, 1, atomic)
		})
	}
}

func BenchmarkAppendBatchR3(b *testing.B) {
	for _, atomic := range []bool{true, false} {
		b.Run(fmt.Sprintf("atomic=%v", atomic), func(b *testing.B) {
			cl := natstest.StartCluster(b, 3)
			_, js := cl.Connect(b)
			benchAppend(b, js, 3, atomic)
		})
	}
}
