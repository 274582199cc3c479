package worker_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/worker"
)

// BenchmarkRuntimeThroughput measures events handled per second through a
// real embedded JetStream server: fetch, decode, handle (one output),
// publish with de-duplication, double ack.
func BenchmarkRuntimeThroughput(b *testing.B) {
	for _, conc := range []int{1, 4} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			_, _, js := natstest.StartJS(b)
			ctx := context.Background()
			if err := bus.Provision(ctx, js, bus.Topology{}, []string{events.ServiceLibrarian}); err != nil {
				b.Fatal(err)
			}
			key, err := bus.MsgIDKey(ctx, js)
			if err != nil {
				b.Fatal(err)
			}
			var handled atomic.Int64
			done := make(chan struct{})
			rt, err := worker.New(js, worker.Config{Service: events.ServiceLibrarian, Concurrency: conc, MsgIDs: key},
				func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
					out, err := in.Follow(events.KindContext, 1, "bench", time.Now(), map[string]string{"summary": "x"})
					if handled.Add(1) == int64(b.N) {
						close(done)
					}
					return []events.Envelope{out}, err
				}, worker.WithLogger(slog.New(slog.DiscardHandler)))
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				env, _ := events.New(fmt.Sprintf("bench%d", i), events.KindRequested, 1, "bench", time.Now(),
					events.Requested{Request: "x", Repo: events.RepoRef{Path: "/r"}})
				raw, _ := env.Encode(0)
				if _, err := js.Publish(ctx, events.KindRequested.Subject(env.RunID()), raw); err != nil {
					b.Fatal(err)
				}
			}
			rctx, cancel := context.WithCancel(ctx)
			errc := make(chan error, 1)
			b.ResetTimer()
			start := time.Now()
			go func() { errc <- rt.Run(rctx) }()
			<-done
			elapsed := time.Since(start)
			b.StopTimer()
			cancel()
			if err := <-errc; err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
		})
	}
}
