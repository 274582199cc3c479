package main

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/nats-io/nats.go"
)

// TestFlushThroughWaitsForAReconnect: the server a client follows a run
// through dies while the client subscribes (the chaos suite's agent got
// "nats: connection closed" from a flush then, and gave up on its run):
// the flush waits for the reconnect, after which the subscription works.
func TestFlushThroughWaitsForAReconnect(t *testing.T) {
	first, err := bus.StartEmbedded(bus.EmbeddedConfig{Port: -1, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	port := first.Server().Addr().(*net.TCPAddr).Port
	nc, err := bus.Connect(bus.ConnectOptions{URL: first.ClientURL(), Name: "follow"})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sub, err := nc.SubscribeSync("codali.run.r1.>")
	if err != nil {
		t.Fatal(err)
	}
	first.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for nc.IsConnected() {
		select {
		case <-ctx.Done():
			t.Fatal("the client never noticed its server died")
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := nc.FlushTimeout(time.Second); err == nil {
		t.Fatal("a flush with the server gone succeeded: the test no longer shows the failure")
	}
	done := make(chan error, 1)
	go func() { done <- flushThrough(ctx, nc) }()
	second, err := bus.StartEmbedded(bus.EmbeddedConfig{Port: port, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Shutdown()
	if err := <-done; err != nil {
		t.Fatalf("flushThrough across a reconnect: %v", err)
	}
	pub, err := nats.Connect(second.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	if err := pub.Publish("codali.run.r1.plan", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := sub.NextMsg(10 * time.Second); err != nil {
		t.Fatalf("the subscription did not come back with the reconnect: %v", err)
	}
}

// TestFlushThroughGivesUpOnAClosedConnection: a connection closed for
// good fails at once.
func TestFlushThroughGivesUpOnAClosedConnection(t *testing.T) {
	srv, err := bus.StartEmbedded(bus.EmbeddedConfig{Port: -1, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	nc, err := bus.Connect(bus.ConnectOptions{URL: srv.ClientURL(), Name: "follow"})
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := flushThrough(ctx, nc); err == nil {
		t.Fatal("flushThrough on a closed connection succeeded")
	}
	if ctx.Err() != nil {
		t.Fatal("flushThrough waited on a closed connection")
	}
}
