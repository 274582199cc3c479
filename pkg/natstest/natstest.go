// Package natstest starts real embedded nats-servers for tests: JetStream
// enabled, random loopback port, store in a temporary directory, torn down
// by t.Cleanup. It never mocks NATS.
package natstest

import (
	"context"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Start starts an embedded JetStream server for the test and returns it.
// The test fails immediately if the server cannot start.
func Start(t testing.TB) *bus.Embedded {
	t.Helper()
	srv, err := bus.StartEmbedded(bus.EmbeddedConfig{Port: -1, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatalf("start embedded nats-server: %v", err)
	}
	t.Cleanup(srv.Shutdown)
	return srv
}

// Connect opens a client connection and a JetStream handle to srv, closed by
// t.Cleanup.
func Connect(t testing.TB, srv *bus.Embedded) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatalf("connect to %s: %v", srv.ClientURL(), err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatalf("jetstream: %v", err)
	}
	return nc, js
}

// StartJS is Start followed by Connect.
func StartJS(t testing.TB) (*bus.Embedded, *nats.Conn, jetstream.JetStream) {
	t.Helper()
	srv := Start(t)
	nc, js := Connect(t, srv)
	return srv, nc, js
}

// StartProvisioned is StartJS with every stream, consumer and bucket
// provisioned (bus.Provision, the default topology), and a context that
// ends with the test (at most one minute).
func StartProvisioned(t testing.TB) (context.Context, jetstream.JetStream) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	_, _, js := StartJS(t)
	if err := bus.Provision(ctx, js, bus.Topology{}, nil); err != nil {
		t.Fatalf("provision: %v", err)
	}
	return ctx, js
}
