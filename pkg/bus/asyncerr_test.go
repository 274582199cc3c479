package bus_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/syncbuf"
	"github.com/nats-io/nats.go/jetstream"
)

// An identity without the leader's message get (rendered by an older
// release) gets an error that names the refused permission and what to
// do, and its connection logs the server's refusal, which nats.go would
// otherwise drop.
func TestLeaderGetNamesARefusedPermission(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "nats.conf")
	if err := os.WriteFile(conf, []byte(`authorization {
  users = [
    {user: full, password: full-pw}
    {user: old, password: old-pw, permissions: {publish: {allow: [">"], deny: ["$JS.API.STREAM.MSG.GET.>"]}, subscribe: {allow: [">"]}}}
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

	full, err := bus.Connect(bus.ConnectOptions{URL: srv.ClientURL(), User: "full", Password: "full-pw"})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	fjs, err := jetstream.New(full)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := fjs.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if e, err := bus.LeaderGet(ctx, fjs, "b", "k"); err != nil || string(e.Value()) != "v" {
		t.Fatalf("full identity: %v, %v", e, err)
	}

	logs := &syncbuf.Buffer{}
	old, err := bus.Connect(bus.ConnectOptions{URL: srv.ClientURL(), User: "old", Password: "old-pw",
		Log: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	ojs, err := jetstream.New(old)
	if err != nil {
		t.Fatal(err)
	}
	short, stop := context.WithTimeout(ctx, time.Second)
	defer stop()
	_, err = bus.LeaderGet(short, ojs, "b", "k")
	if !errors.Is(err, bus.ErrPermissionDenied) {
		t.Fatalf("LeaderGet as old = %v, want ErrPermissionDenied", err)
	}
	if !bus.IsTransient(err) {
		t.Errorf("a refused read should stay transient (it succeeds once the permissions are applied): %v", err)
	}
	for _, want := range []string{"$JS.API.STREAM.MSG.GET.KV_b", "docs/deployment.md"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	// The refusal reaches the log (it arrived before the request timed out).
	line := logs.String()
	if !strings.Contains(line, "level=ERROR") || !strings.Contains(line, "MSG.GET.KV_b") || !strings.Contains(line, "docs/deployment.md") {
		t.Errorf("log does not report the refusal:\n%s", line)
	}

	// The permitted identity's errors are not called refusals.
	if _, err := bus.LeaderGet(ctx, fjs, "b", "missing"); !errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, bus.ErrPermissionDenied) {
		t.Errorf("missing key as full = %v, want ErrKeyNotFound only", err)
	}
}
