package pmstate

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/natstest"
)

// benchStore returns a Store over a fresh bucket on an embedded server.
func benchStore(b *testing.B, opts ...Option) *Store {
	b.Helper()
	_, _, js := natstest.StartJS(b)
	kv, err := provisionedBucket(context.Background(), js)
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(kv, opts...)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkUpdate measures sequential read-apply-CAS cycles on one project
// whose memory is bounded to 64 entries.
func BenchmarkUpdate(b *testing.B) {
	s := benchStore(b, WithMaxL1Entries(64))
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		if _, err := s.Update(ctx, "bench", appendFn(fmt.Sprintf("entry %d", i))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateContended runs parallel writers on one project; each op is
// one successful write after however many CAS retries it needed.
func BenchmarkUpdateContended(b *testing.B) {
	s := benchStore(b, WithMaxL1Entries(64), WithMaxAttempts(1000))
	ctx := context.Background()
	var n atomic.Int64
	var calls atomic.Int64
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			v := fmt.Sprintf("entry %d", n.Add(1))
			_, err := s.Update(ctx, "bench", func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
				calls.Add(1)
				return nil, []cognition.L1MemoryPatchOp{cognition.AppendOp(v)}, nil
			})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(calls.Load())/float64(n.Load()), "attempts/op")
}

// BenchmarkGoldenThenLearning measures a run's use of the learning record:
// the critic adds a golden example (a full record of DefaultMaxGolden
// examples, about 30 KB), then a prompt reads the record.
func BenchmarkGoldenThenLearning(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	patch := strings.Repeat("+ a line of the change\n", 20)
	i := 0
	for b.Loop() {
		i++
		g := Golden{RunID: fmt.Sprintf("run-%d", i), Intent: "add a test", Plan: "one step", Files: []string{"a.go", "a_test.go"}, Patch: patch, At: time.Now()}
		if err := s.AddGolden(ctx, "bench", g, 0); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Learning(ctx, "bench"); err != nil {
			b.Fatal(err)
		}
	}
}
