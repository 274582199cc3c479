package natstest

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

// Cluster is a JetStream cluster of in-process nats-servers with routes on
// loopback. Members can be stopped and restarted on the same ports and
// store directories, as a crashed server that comes back.
type Cluster struct {
	layout
	t       testing.TB
	mu      sync.Mutex
	members []*member
}

type member struct {
	cfg bus.EmbeddedConfig
	srv *bus.Embedded // nil while stopped
}

// StartCluster starts an n-member JetStream cluster and waits until it has
// a meta leader. Every member is shut down by t.Cleanup. With n == 1 it is
// a single plain server (no cluster configuration) that can be stopped and
// restarted on its port and store.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	clientPorts, routePorts := FreePorts(t, n), FreePorts(t, n)
	routes := make([]string, n)
	for i := range n {
		routes[i] = fmt.Sprintf("nats-route://127.0.0.1:%d", routePorts[i])
	}
	c := &Cluster{t: t, layout: newLayout(clientPorts)}
	for i := range n {
		cfg := bus.EmbeddedConfig{Port: clientPorts[i], StoreDir: t.TempDir(), ServerName: c.Name(i), ReadyTimeout: 30 * time.Second}
		if n > 1 {
			cfg.ClusterName, cfg.ClusterPort, cfg.Routes = "codali-test", routePorts[i], routes
		}
		c.members = append(c.members, &member{cfg: cfg})
	}
	t.Cleanup(func() {
		for i := range c.members {
			c.Stop(i)
		}
	})
	// Start the members at once: each waits for routes to its peers.
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.start(i)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("start cluster: %v", err)
		}
	}
	c.WaitJetStream(t)
	return c
}

func (c *Cluster) start(i int) error {
	c.mu.Lock()
	m := c.members[i]
	cfg := m.cfg
	c.mu.Unlock()
	srv, err := bus.StartEmbedded(cfg)
	if err != nil {
		return fmt.Errorf("member %s: %w", cfg.ServerName, err)
	}
	c.mu.Lock()
	m.srv = srv
	c.mu.Unlock()
	return nil
}

// Stop shuts member i down at once, as a killed server: its clients are
// disconnected and the others elect new leaders for what it led. Stopping
// a stopped member does nothing.
func (c *Cluster) Stop(i int) {
	c.mu.Lock()
	srv := c.members[i].srv
	c.members[i].srv = nil
	c.mu.Unlock()
	if srv != nil {
		srv.Shutdown()
	}
}

// Restart starts a stopped member again on its ports and store.
func (c *Cluster) Restart(t testing.TB, i int) {
	t.Helper()
	if err := c.start(i); err != nil {
		t.Fatalf("restart: %v", err)
	}
}

// Running reports whether member i is running.
func (c *Cluster) Running(i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.members[i].srv != nil
}

// StartProvisionedCluster is StartCluster with every stream, consumer and
// bucket provisioned at n replicas (bus.Provision), and a context that
// ends with the test (at most two minutes).
func StartProvisionedCluster(t testing.TB, n int) (context.Context, *Cluster) {
	t.Helper()
	c := StartCluster(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	_, js := c.Connect(t)
	// As the services do: on a cluster this fresh, a stream's leader may
	// not be elected yet when provisioning reads through it (the message
	// id key), which fails transiently ("no responders").
	if err := bus.ProvisionRetrying(ctx, slog.New(slog.DiscardHandler), js, bus.Topology{Replicas: n}, nil, nil); err != nil {
		t.Fatalf("provision: %v", err)
	}
	return ctx, c
}

// StartSplitCluster is StartProvisionedCluster on three servers, waiting
// until every replica of stream answers direct gets (WaitDirectGets),
// with a client of the stream's leader and one of a follower (Split): the
// setup of a test that writes through the leader and reads at once
// through a replica that may lag.
func StartSplitCluster(t testing.TB, stream string) (ctx context.Context, leader, follower jetstream.JetStream) {
	t.Helper()
	ctx, c := StartProvisionedCluster(t, 3)
	c.WaitDirectGets(t, stream)
	leader, follower = c.Split(t, ctx, stream)
	return ctx, leader, follower
}

// WaitDirectGets waits (up to a minute) until every running member
// answers direct gets of the stream (a KV bucket's is "KV_" and its
// name): a follower joins the direct get queue group about two seconds
// after it caught up, and from then on answers from its own replica,
// which may lag the leader. Only then can a test see such a read.
func (c *Cluster) WaitDirectGets(t testing.TB, stream string) {
	t.Helper()
	subject := "$JS.API.DIRECT.GET." + stream
	deadline := time.Now().Add(time.Minute)
	for {
		ready := true
		c.mu.Lock()
		for _, m := range c.members {
			if m.srv != nil && !directGets(m.srv.Server(), subject) {
				ready = false
			}
		}
		c.mu.Unlock()
		if ready {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("stream %s: not every replica answers direct gets after a minute", stream)
		}
		time.Sleep(50 * time.Millisecond) // poll interval
	}
}

// directGets reports whether the server's own replica of a stream
// subscribes to its direct gets (subject, a queue subscription).
func directGets(s *server.Server, subject string) bool {
	sz, err := s.Subsz(&server.SubszOptions{Subscriptions: true, Account: server.DEFAULT_GLOBAL_ACCOUNT, Test: subject})
	if err != nil {
		return false
	}
	for _, sub := range sz.Subs {
		if sub.Subject == subject && sub.Queue != "" {
			return true
		}
	}
	return false
}
