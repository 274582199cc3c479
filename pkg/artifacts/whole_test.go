package artifacts_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// TestPutAfterAPutLeftItsMetaOnly: the library's put of an object over
// one chunk publishes its meta before its chunks are acknowledged; when
// the stream refuses a chunk and takes the meta, it purges the chunks and
// the meta names nothing (written here as it leaves it). Put of the same
// content later (the event handled again) must store it again, not take
// the name for stored.
func TestPutAfterAPutLeftItsMetaOnly(t *testing.T) {
	js, s := openProvisioned(t)
	for _, n := range []int{10, 300 << 10} {
		data := bytes.Repeat([]byte("m"), n)
		name := "metaonly/" + refOfData(data)
		publishMeta(t, js, name, marshal(t, metaOf(t, name, nuid.Next(), data)))
		readable(t, s, "metaonly", data)
	}
}

// TestPutWhenTheLeaderCannotSay: Put of content whose name is stored asks
// the bucket's leader whether its chunk is there; when it cannot (here
// the identity may not make the leader's read), Put fails with that
// error rather than hand on a reference it could not check, and Get
// fails with it rather than call an object lost that it could not
// check.
func TestPutWhenTheLeaderCannotSay(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "nats.conf")
	if err := os.WriteFile(conf, []byte(`authorization {
  users = [
    {user: full, password: full-pw}
    {user: noleader, password: noleader-pw, permissions: {publish: {allow: [">"], deny: ["$JS.API.STREAM.MSG.GET.>"]}, subscribe: {allow: [">"]}}}
  ]
}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := bus.StartEmbedded(bus.EmbeddedConfig{Port: -1, StoreDir: t.TempDir(), ConfigFile: conf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	open := func(user string) (*artifacts.Store, jetstream.JetStream) {
		nc, err := bus.Connect(bus.ConnectOptions{URL: srv.ClientURL(), User: user, Password: user + "-pw",
			Log: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		if user == "full" {
			if err := bus.Provision(ctx, js, bus.Topology{}, []string{}); err != nil {
				t.Fatal(err)
			}
		}
		s, err := artifacts.Open(ctx, js)
		if err != nil {
			t.Fatal(err)
		}
		return s, js
	}
	data := []byte("stored by full")
	full, fulljs := open("full")
	noleader, _ := open("noleader")
	if _, err := full.Put(ctx, "checked", data); err != nil {
		t.Fatal(err)
	}
	pctx, stop := context.WithTimeout(ctx, 2*time.Second)
	defer stop()
	if ref, err := noleader.Put(pctx, "checked", data); !errors.Is(err, bus.ErrPermissionDenied) {
		t.Fatalf("Put without the leader's read: %+v, %v; want ErrPermissionDenied", ref, err)
	}
	// Nor does Get call an object lost that it could not check: its
	// chunk (one chunk), or its meta (three chunks, counted by stream
	// info), are the leader's to say.
	artifacts.LookAgainFor(noleader, 0)
	for _, data := range [][]byte{[]byte("unchecked"), bytes.Repeat([]byte("unchecked"), 300<<10/9)} {
		ref, err := full.Put(ctx, "unchecked", data)
		if err != nil {
			t.Fatal(err)
		}
		natstest.PurgeArtifactChunks(t, ctx, fulljs)
		gctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err = noleader.Get(gctx, ref)
		cancel()
		if !errors.Is(err, bus.ErrPermissionDenied) || artifacts.IsLost(err) {
			t.Fatalf("Get of %d bytes without the leader's read: %v; want ErrPermissionDenied", len(data), err)
		}
	}
}

// TestPutOverOtherContentOfTheSameSize: a name holding other content of
// the same size (written by something else than Put: the name is the
// content's digest) is not taken for stored: Put stores the content and
// Get reads it.
func TestPutOverOtherContentOfTheSameSize(t *testing.T) {
	ctx := context.Background()
	js, s := openProvisioned(t)
	obj, err := js.ObjectStore(ctx, events.BucketArtifacts)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{100, 200 << 10} {
		data := bytes.Repeat([]byte("r"), n)
		if _, err := obj.PutBytes(ctx, "other/"+refOfData(data), bytes.Repeat([]byte("w"), n)); err != nil {
			t.Fatal(err)
		}
		readable(t, s, "other", data)
	}
}
