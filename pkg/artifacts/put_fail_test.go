package artifacts_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// updateArtifactsStream changes the artifacts bucket's stream config with
// change and returns a function that puts the config back.
func updateArtifactsStream(t *testing.T, ctx context.Context, js jetstream.JetStream, change func(*jetstream.StreamConfig)) func() {
	t.Helper()
	st, err := js.Stream(ctx, "OBJ_"+events.BucketArtifacts)
	if err != nil {
		t.Fatal(err)
	}
	was := st.CachedInfo().Config
	cfg := was
	change(&cfg)
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		if _, err := js.UpdateStream(ctx, was); err != nil {
			t.Fatal(err)
		}
	}
}

// readable fails the test unless Put of data stores an object that Get
// reads back (within a bound, so a put that left a name pointing at no
// chunk fails fast instead of hanging the test).
func readable(t *testing.T, s *artifacts.Store, prefix string, data []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ref, err := s.Put(ctx, prefix, data)
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	got, err := s.Get(ctx, ref)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get of %s after an earlier put of it failed: %d bytes, %v", ref.Name, len(got), err)
	}
}

// TestPutNewWhoseChunkIsRefused: when the stream refuses the chunk (here
// over the stream's message size, as a full account refuses a large
// message and still takes a small one), no object of the name is left
// behind: a meta stored without its chunk names an object nobody can
// read, and Put of the same content later (the event handled again)
// would find it, take it for stored and hand on a reference to it.
func TestPutNewWhoseChunkIsRefused(t *testing.T) {
	ctx := context.Background()
	js, s := openProvisioned(t)
	data := bytes.Repeat([]byte("refused "), 512)
	restore := updateArtifactsStream(t, ctx, js, func(c *jetstream.StreamConfig) { c.MaxMsgSize = 1024 })
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	ref, err := s.PutNew(pctx, "refused", data)
	cancel()
	if err == nil {
		t.Fatalf("PutNew of a chunk the stream refuses: stored %s", ref.Name)
	}
	obj, err := js.ObjectStore(ctx, events.BucketArtifacts)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := obj.GetInfo(ctx, "refused/"+refOfData(data)); !errors.Is(err, jetstream.ErrObjectNotFound) {
		t.Fatalf("after a refused chunk the name is stored: %+v, %v", info, err)
	}
	restore()
	readable(t, s, "refused", data)
}

// TestPutWhoseSecondChunkIsRefused: a put of three chunks whose second
// the stream refuses (here it would go over the stream's size) stores no
// meta, and the chunk it stored is purged; once the stream has room, the
// same content is stored and reads back.
func TestPutWhoseSecondChunkIsRefused(t *testing.T) {
	ctx := context.Background()
	js, s := openProvisioned(t)
	st, err := js.Stream(ctx, "OBJ_"+events.BucketArtifacts)
	if err != nil {
		t.Fatal(err)
	}
	artifacts.LookAgainFor(s, 0) // a full stream is transient: not retried here
	data := bytes.Repeat([]byte("three chunks "), 300<<10/13)
	restore := updateArtifactsStream(t, ctx, js, func(c *jetstream.StreamConfig) { c.MaxBytes = 200 << 10 })
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	ref, err := s.PutNew(pctx, "second", data)
	cancel()
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) || !strings.Contains(err.Error(), "chunk 2 of 3") {
		t.Fatalf("PutNew of a second chunk the stream refuses: %+v, %v", ref, err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 0 {
		t.Fatalf("the refused put left %d messages in the bucket, want none", info.State.Msgs)
	}
	restore()
	readable(t, s, "second", data)
}

// TestPutNewWhoseMetaIsRefused: when the stream refuses the meta (here it
// no longer allows the roll-up), the put fails and its chunk is purged.
func TestPutNewWhoseMetaIsRefused(t *testing.T) {
	ctx := context.Background()
	js, s := openProvisioned(t)
	restore := updateArtifactsStream(t, ctx, js, func(c *jetstream.StreamConfig) { c.AllowRollup = false })
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	_, err := s.PutNew(pctx, "norollup", []byte("meta refused"))
	cancel()
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("PutNew of a meta the stream refuses: %v, want the server's refusal", err)
	}
	st, err := js.Stream(ctx, "OBJ_"+events.BucketArtifacts)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 0 {
		t.Fatalf("the refused put left %d messages in the bucket, want its chunk purged", info.State.Msgs)
	}
	restore()
	readable(t, s, "norollup", []byte("meta refused"))
}

// TestPutNewCancelled: a put whose context ends before its
// acknowledgements arrive leaves no name that cannot be read: the same
// content put again later is read back.
func TestPutNewCancelled(t *testing.T) {
	ctx := context.Background()
	_, s := openProvisioned(t)
	for i, n := range []int{0, 10, 64 << 10} {
		data := bytes.Repeat([]byte{'c' + byte(i)}, n)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := s.PutNew(cctx, "cancelled", data); !errors.Is(err, context.Canceled) {
			t.Fatalf("PutNew with its context cancelled: %v", err)
		}
		readable(t, s, "cancelled", data)
	}
}

// TestPutNewAfterLostAcknowledgements: puts whose acknowledgements never
// arrive (the stream is without a leader, here gone, while something
// else listens on its subjects, so the server does not answer "no
// responders" either; in a cluster, a leader change drops writes in
// flight the same way) fail, and cost nothing once the stream is back:
// nothing waits for their acknowledgements any longer, so later puts are
// not refused as too many pending ones.
func TestPutNewAfterLostAcknowledgements(t *testing.T) {
	ctx := context.Background()
	js, s := openProvisioned(t)
	if err := js.DeleteStream(ctx, "OBJ_"+events.BucketArtifacts); err != nil {
		t.Fatal(err)
	}
	nc := js.Conn()
	tap, err := nats.Connect(nc.ConnectedUrl())
	if err != nil {
		t.Fatal(err)
	}
	defer tap.Close()
	sub, err := tap.Subscribe("$O."+events.BucketArtifacts+".>", func(*nats.Msg) {})
	if err != nil {
		t.Fatal(err)
	}
	if err := tap.Flush(); err != nil {
		t.Fatal(err)
	}
	const workers, each = 16, 130 // over 2000 puts: 4000 publishes
	var wg sync.WaitGroup
	var mu sync.Mutex
	stored := 0
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				pctx, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
				_, err := s.PutNew(pctx, "lost", []byte{byte(w), byte(i), byte(i >> 8)})
				cancel()
				if err == nil {
					mu.Lock()
					stored++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if stored > 0 {
		t.Fatalf("%d puts without a stream were stored", stored)
	}
	if err := sub.Unsubscribe(); err != nil {
		t.Fatal(err)
	}
	if err := tap.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := bus.Provision(ctx, js, bus.Topology{}, []string{}); err != nil {
		t.Fatal(err)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ref, err := s.PutNew(pctx, "after", []byte("the stream is back"))
	if err != nil {
		t.Fatalf("PutNew once the stream is back: %v", err)
	}
	if got, err := s.Get(pctx, ref); err != nil || string(got) != "the stream is back" {
		t.Fatalf("Get: %q %v", got, err)
	}
}

// refOfData is the digest part of the name an artifact of data is stored
// under.
func refOfData(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
