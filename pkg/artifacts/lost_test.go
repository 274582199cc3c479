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
	"github.com/nats-io/nats.go/jetstream"
)

// TestGetOfAnArtifactWhoseChunksAreGone: an artifact whose meta is
// stored but whose content is not (its chunks purged, deleted, or the
// first or last of several deleted, as the bucket's TTL or an operator
// removes them) is ErrLost: not ErrNotFound, not a failure to retry, and
// said before the caller's context ends (the library waits for chunks
// that never come until then). Put of the same content stores it again.
func TestGetOfAnArtifactWhoseChunksAreGone(t *testing.T) {
	ctx := context.Background()
	js, s := openProvisioned(t)
	st, err := js.Stream(ctx, "OBJ_"+events.BucketArtifacts)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := js.ObjectStore(ctx, events.BucketArtifacts)
	if err != nil {
		t.Fatal(err)
	}
	// deleteChunk deletes the first (or last) chunk message of subject.
	deleteChunk := func(subject string, last bool) error {
		var m *jetstream.RawStreamMsg
		var err error
		if last {
			m, err = st.GetLastMsgForSubject(ctx, subject)
		} else {
			m, err = st.GetMsg(ctx, 1, jetstream.WithGetMsgSubject(subject))
		}
		if err != nil {
			return err
		}
		return st.DeleteMsg(ctx, m.Sequence)
	}
	removals := map[string]func(subject string) error{
		"purged": func(subject string) error { return st.Purge(ctx, jetstream.WithPurgeSubject(subject)) },
		"deleted": func(subject string) error {
			for {
				err := deleteChunk(subject, false)
				if errors.Is(err, jetstream.ErrMsgNotFound) {
					return nil
				}
				if err != nil {
					return err
				}
			}
		},
		"first deleted": func(subject string) error { return deleteChunk(subject, false) },
		"last deleted":  func(subject string) error { return deleteChunk(subject, true) },
	}
	for _, n := range []int{10, 128 << 10, 300 << 10} {
		for how, remove := range removals {
			data := bytes.Repeat([]byte(how[:1]), n)
			ref, err := s.Put(ctx, "chunkless", data)
			if err != nil {
				t.Fatal(err)
			}
			info, err := obj.GetInfo(ctx, ref.Name)
			if err != nil {
				t.Fatal(err)
			}
			if err := remove("$O." + events.BucketArtifacts + ".C." + info.NUID); err != nil {
				t.Fatalf("%s: %v", how, err)
			}
			gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			_, err = s.Get(gctx, ref)
			cancel()
			if !errors.Is(err, artifacts.ErrLost) || errors.Is(err, artifacts.ErrNotFound) || !artifacts.IsLost(err) || bus.IsTransient(err) {
				t.Fatalf("%d bytes, chunks %s: Get: %v; want ErrLost", n, how, err)
			}
			readable(t, s, "chunkless", data)
		}
	}
}

// TestGetCancelledWhileItsChunksAreAwaited: a Get of a larger object
// whose chunks do not come (gone here) returns as soon as its context is
// cancelled: the library's read waits for chunks until its deadline,
// whatever the cancellation.
func TestGetCancelledWhileItsChunksAreAwaited(t *testing.T) {
	ctx := context.Background()
	js, s := openProvisioned(t)
	artifacts.AttemptTimeoutFor(s, time.Hour)
	data := bytes.Repeat([]byte("awaited "), 300<<10/8)
	ref, err := s.Put(ctx, "awaited", data)
	if err != nil {
		t.Fatal(err)
	}
	natstest.PurgeArtifactChunks(t, ctx, js)
	gctx, cancel := context.WithCancel(ctx)
	stop := time.AfterFunc(50*time.Millisecond, cancel) // while the read waits (before it looks whether the chunks are there)
	defer stop.Stop()
	done := make(chan error, 1)
	go func() {
		_, err := s.Get(gctx, ref)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || artifacts.IsLost(err) {
			t.Fatalf("Get cancelled: %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Get did not return when its context was cancelled")
	}
}
