package artifacts_test

import (
	"bytes"
	"context"
	"errors"
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
			s, nc, srv, start := restartable(t, ctx)
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

// restartable is a store on a provisioned server that start starts again
// on the same port and store once it was shut down, with the store's
// connection (reconnecting every 50 ms, for ever).
func restartable(t *testing.T, ctx context.Context) (s *artifacts.Store, nc *nats.Conn, srv *bus.Embedded, start func() *bus.Embedded) {
	t.Helper()
	port, dir := natstest.FreePorts(t, 1)[0], t.TempDir()
	start = func() *bus.Embedded {
		srv, err := bus.StartEmbedded(bus.EmbeddedConfig{Port: port, StoreDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Shutdown)
		return srv
	}
	srv = start()
	nc, err := nats.Connect(srv.ClientURL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Provision(ctx, js, bus.Topology{}, []string{}); err != nil {
		t.Fatal(err)
	}
	if s, err = artifacts.Open(ctx, js); err != nil {
		t.Fatal(err)
	}
	return s, nc, srv, start
}

// TestPutGivesUpWithItsContext: against a server that does not answer,
// a put retries only while its caller's context lasts (here far less
// than the waits it would make), and one whose context is cancelled
// after it wrote its chunk stops at once; neither leaves a name that
// cannot be read once the server is back (their chunks, kept by the
// client, are stored then without a meta): Get says not found, and Put
// stores the content.
func TestPutGivesUpWithItsContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, nc, srv, start := restartable(t, ctx)
	artifacts.AttemptTimeoutFor(s, 200*time.Millisecond)
	artifacts.LookAgainFor(s, time.Hour)
	srv.Shutdown()
	late, stopped := []byte("past its deadline"), bytes.Repeat([]byte("cancelled"), 1000)
	dctx, dcancel := context.WithTimeout(ctx, time.Second)
	defer dcancel()
	if ref, err := s.PutNew(dctx, "late", late); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("PutNew past its context's deadline: %+v, %v", ref, err)
	}
	cctx, ccancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	before, _ := nc.Buffered()
	go func() {
		_, err := s.Put(cctx, "stopped", stopped)
		done <- err
	}()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for buffered, _ := nc.Buffered(); buffered < before+len(stopped); buffered, _ = nc.Buffered() {
		select {
		case err := <-done:
			t.Fatalf("Put returned before its context was cancelled: %v", err)
		case <-tick.C:
		}
	}
	ccancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Put cancelled: %v", err)
	}
	start()
	artifacts.LookAgainFor(s, 0)
	for prefix, data := range map[string][]byte{"late": late, "stopped": stopped} {
		ref := events.ArtifactRef{Bucket: events.BucketArtifacts, Name: prefix + "/" + refOfData(data), Size: int64(len(data)), SHA256: refOfData(data)}
		if _, err := s.Get(ctx, ref); !errors.Is(err, artifacts.ErrNotFound) {
			t.Fatalf("Get of %s after its put gave up: %v, want ErrNotFound", prefix, err)
		}
		readable(t, s, prefix, data)
	}
}

// TestGetDoesNotWaitOutASilentServer: unlike a put, a read whose attempt
// the server did not answer is not tried again once Get's look-again
// window has passed: it fails, transiently, and the event is handled
// again later. Each attempt's request waits in the client's buffer while
// the server is down: the Get makes as many as one with no second look.
func TestGetDoesNotWaitOutASilentServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, nc, srv, _ := restartable(t, ctx)
	ref, err := s.PutNew(ctx, "silent", []byte("silent"))
	if err != nil {
		t.Fatal(err)
	}
	artifacts.AttemptTimeoutFor(s, time.Second)
	srv.Shutdown()
	// Until the client has seen the server go, a request is written to the
	// dead connection instead of its buffer, and counts no bytes below.
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for nc.IsConnected() {
		select {
		case <-ctx.Done():
			t.Fatal("the client did not see the server go")
		case <-tick.C:
		}
	}
	requests := func(lookAgain time.Duration) int {
		artifacts.LookAgainFor(s, lookAgain)
		before, _ := nc.Buffered()
		if _, err := s.Get(ctx, ref); err == nil || artifacts.IsLost(err) || !bus.IsTransient(err) {
			t.Fatalf("Get from a server that is down: %v, want a transient error", err)
		}
		after, _ := nc.Buffered()
		return after - before
	}
	one := requests(0)
	if got := requests(500 * time.Millisecond); one <= 0 || got != one {
		t.Fatalf("a Get whose attempt outlasted its look-again window sent %d bytes of requests, want %d (one attempt)", got, one)
	}
}
