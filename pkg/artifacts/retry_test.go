package artifacts_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestPutRetriesAnAttemptThatTimedOut: a put attempt that the server
// does not answer within the attempt's timeout (here the server is shut
// down: the client keeps the writes for its reconnection and nothing
// answers) is tried again like any other transient failure, however
// long it took, and the artifact is stored once the server, restarted on
// the same port and store, answers again. The attempt's timeout is
// longer than the time the put waits in all between attempts, as in
// production (30 s and 5 s).
func TestPutRetriesAnAttemptThatTimedOut(t *testing.T) {
	puts := map[string]func(*artifacts.Store) func(context.Context, string, []byte) (events.ArtifactRef, error){
		"PutNew": func(s *artifacts.Store) func(context.Context, string, []byte) (events.ArtifactRef, error) {
			return s.PutNew
		},
		"Put": func(s *artifacts.Store) func(context.Context, string, []byte) (events.ArtifactRef, error) {
			return s.Put
		},
	}
	for name, put := range puts {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			port, dir := natstest.FreePorts(t, 1)[0], t.TempDir()
			start := func() *bus.Embedded {
				srv, err := bus.StartEmbedded(bus.EmbeddedConfig{Port: port, StoreDir: dir})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(srv.Shutdown)
				return srv
			}
			srv := start()
			nc, err := nats.Connect(srv.ClientURL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			js, err := jetstream.New(nc)
			if err != nil {
				t.Fatal(err)
			}
			if err := bus.Provision(ctx, js, bus.Topology{}, []string{}); err != nil {
				t.Fatal(err)
			}
			s, err := artifacts.Open(ctx, js)
			if err != nil {
				t.Fatal(err)
			}
			artifacts.AttemptTimeoutFor(s, 2*time.Second)
			artifacts.LookAgainFor(s, 1500*time.Millisecond)
			data := bytes.Repeat([]byte(name[:1]), 10<<10)
			srv.Shutdown()
			type result struct {
				ref events.ArtifactRef
				err error
			}
			done := make(chan result, 1)
			go func() {
				ref, err := put(s)(ctx, "timedout", data)
				done <- result{ref, err}
			}()
			// Each attempt's chunk waits in the client's buffer: two of
			// them are an attempt that timed out and the next one.
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			for buffered, _ := nc.Buffered(); buffered < 2*len(data); buffered, _ = nc.Buffered() {
				select {
				case r := <-done:
					t.Fatalf("a put whose attempt timed out was not tried again: %+v, %v", r.ref, r.err)
				case <-ctx.Done():
					t.Fatal("no second attempt")
				case <-tick.C:
				}
			}
			start()
			r := <-done
			if r.err != nil {
				t.Fatalf("put once the server is back: %v", r.err)
			}
			got, err := s.Get(ctx, r.ref)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("Get: %d bytes, %v", len(got), err)
			}
		})
	}
}
