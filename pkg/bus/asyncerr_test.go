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
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// An identity without the leader's message get (rendered by an older
// release) gets an error that names the refused permission and what to
// do, and its connection logs the server's refusal, which nats.go would
// otherwise drop.
func TestLeaderGetNamesARefusedPermission(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, _, fjs := refusingServer(t, ctx)

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

// refusingServer starts a server with the users full (everything) and old
// (everything but the leader's message get, as an identity rendered by an
// older release) and a bucket b holding k=v. It returns the server, a
// function that grants old everything (the server reloads its
// configuration; connections stay) and full's JetStream context.
func refusingServer(t *testing.T, ctx context.Context) (*bus.Embedded, func(), jetstream.JetStream) {
	t.Helper()
	conf := filepath.Join(t.TempDir(), "nats.conf")
	writeUsers(t, conf, `deny: ["$JS.API.STREAM.MSG.GET.>"]`)
	store := t.TempDir()
	srv, err := bus.StartEmbedded(bus.EmbeddedConfig{Port: -1, StoreDir: store, ConfigFile: conf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	grant := func() {
		t.Helper()
		writeUsers(t, conf, "")
		opts, err := server.ProcessConfigFile(conf)
		if err != nil {
			t.Fatal(err)
		}
		// What StartEmbedded sets over the file, unchanged.
		opts.ServerName, opts.Host, opts.Port = "codali", "127.0.0.1", -1
		opts.JetStream, opts.StoreDir, opts.MaxPayload = true, store, 8<<20
		opts.NoSigs, opts.NoLog = true, true
		if err := srv.Server().ReloadOptions(opts); err != nil {
			t.Fatal(err)
		}
	}
	full, err := bus.Connect(bus.ConnectOptions{URL: srv.ClientURL(), User: "full", Password: "full-pw"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(full.Close)
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
	return srv, grant, fjs
}

// writeUsers writes the server config with the users full and old, old's
// publish permissions allowing everything but what oldDeny says (empty:
// nothing denied).
func writeUsers(t *testing.T, conf, oldDeny string) {
	t.Helper()
	if oldDeny != "" {
		oldDeny = ", " + oldDeny
	}
	if err := os.WriteFile(conf, []byte(`authorization {
  users = [
    {user: full, password: full-pw}
    {user: old, password: old-pw, permissions: {publish: {allow: [">"]`+oldDeny+`}, subscribe: {allow: [">"]}}}
  ]
}
`), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestLeaderGetRefusalEndsWithThePermission: a read refused for want of a
// permission is ErrPermissionDenied; once the permission is granted (the
// server reloads its config, the connection stays), the read works, and a
// later timeout of the same read is a timeout, not a refusal (the
// connection's last asynchronous error is still the old refusal).
func TestLeaderGetRefusalEndsWithThePermission(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, grant, _ := refusingServer(t, ctx)
	old, err := bus.Connect(bus.ConnectOptions{URL: srv.ClientURL(), User: "old", Password: "old-pw",
		Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	ojs, err := jetstream.New(old)
	if err != nil {
		t.Fatal(err)
	}
	// Refused again, it is a refusal again (a new one arrived).
	for i := range 2 {
		short, stop := context.WithTimeout(ctx, time.Second)
		_, err := bus.LeaderGet(short, ojs, "b", "k")
		stop()
		if !errors.Is(err, bus.ErrPermissionDenied) {
			t.Fatalf("LeaderGet refused (%d) = %v, want ErrPermissionDenied", i+1, err)
		}
	}

	grant()
	if e, err := bus.LeaderGet(ctx, ojs, "b", "k"); err != nil || string(e.Value()) != "v" {
		t.Fatalf("LeaderGet once permitted: %v, %v", e, err)
	}
	if old.Stats().Reconnects != 0 || !errors.Is(old.LastError(), nats.ErrPermissionViolation) {
		t.Fatalf("the connection should have kept its last error, the refusal: %d reconnects, %v", old.Stats().Reconnects, old.LastError())
	}
	expired, stop2 := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer stop2()
	_, err = bus.LeaderGet(expired, ojs, "b", "k")
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, bus.ErrPermissionDenied) {
		t.Fatalf("a timeout once permitted = %v, want a timeout and no refusal", err)
	}
}
