package app

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natsauth"
	"github.com/codali-dev/codali/pkg/natsauth/natsauthtest"
	"github.com/codali-dev/codali/pkg/syncbuf"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestMainConnectsWithItsIdentitysInbox: on a server with the natsauth
// identities, where a service may read only its own reply inboxes, Main
// binds its stores and becomes ready as that service's identity (every
// JetStream reply comes to _INBOX_<service>), and refuses a prefix that is
// not a literal subject.
func TestMainConnectsWithItsIdentitysInbox(t *testing.T) {
	if testing.Short() {
		t.Skip("signals the test process")
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	defer signal.Stop(sigs)

	url, pw := natsauthtest.Start(t)
	prov, err := nats.Connect(url, nats.UserInfo(natsauth.Provisioner, pw[natsauth.Provisioner]),
		nats.CustomInboxPrefix(natsauth.InboxPrefix(natsauth.Provisioner)))
	if err != nil {
		t.Fatal(err)
	}
	defer prov.Close()
	js, err := jetstream.New(prov)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := bus.Provision(ctx, js, bus.Topology{}, nil); err != nil {
		t.Fatal(err)
	}

	svc := events.ServiceLibrarian
	args := []string{"--nats", url, "--user", svc, "--password", pw[svc], "--provision", "none"}
	var stdout, stderr syncbuf.Buffer
	if code := Main(append(args, "--inbox-prefix", "_INBOX.>"), &stdout, &stderr, noEnv, idle(), nil); code != ExitUsage {
		t.Fatalf("a wildcard inbox prefix: exit %d, want %d:\n%s", code, ExitUsage, stderr.String())
	}
	addr := freeAddr(t)
	done := make(chan int, 1)
	go func() { done <- Main(append(args, "--http", addr), &stdout, &stderr, noEnv, idle(), nil) }()
	awaitReady(t, addr, done, &stderr)
	terminate(t, done, &stderr)
}
