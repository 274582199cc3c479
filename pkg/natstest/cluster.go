package natstest

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Cluster is a JetStream cluster of in-process nats-servers with routes on
// loopback. Members can be stopped and restarted on the same ports and
// store directories, as a crashed server that comes back.
type Cluster struct {
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
	clientPorts, routePorts := freePorts(t, n), freePorts(t, n)
	routes := make([]string, n)
	for i := range n {
		routes[i] = fmt.Sprintf("nats-route://127.0.0.1:%d", routePorts[i])
	}
	c := &Cluster{t: t}
	for i := range n {
		cfg := bus.EmbeddedConfig{Port: clientPorts[i], StoreDir: t.TempDir(), ServerName: fmt.Sprintf("n%d", i+1), ReadyTimeout: 30 * time.Second}
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

// freePorts reserves n distinct free loopback ports.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	ls := make([]net.Listener, n)
	ports := make([]int, n)
	for i := range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("reserve port: %v", err)
		}
		ls[i], ports[i] = l, l.Addr().(*net.TCPAddr).Port
	}
	for _, l := range ls {
		_ = l.Close()
	}
	return ports
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

// Size is the number of members.
func (c *Cluster) Size() int { return len(c.members) }

// Name is member i's server name (n1, n2, ...), as JetStream reports
// leaders.
func (c *Cluster) Name(i int) string { return c.members[i].cfg.ServerName }

// Index returns the member with the given server name, or -1.
func (c *Cluster) Index(name string) int {
	for i, m := range c.members {
		if m.cfg.ServerName == name {
			return i
		}
	}
	return -1
}

// URLs is every member's client URL, comma-separated, as clients are
// given a cluster.
func (c *Cluster) URLs() string {
	urls := make([]string, len(c.members))
	for i, m := range c.members {
		urls[i] = fmt.Sprintf("nats://127.0.0.1:%d", m.cfg.Port)
	}
	return strings.Join(urls, ",")
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

// Connect opens a client connection to every member (reconnecting
// forever, as the services do) and a JetStream handle, closed by t.Cleanup.
func (c *Cluster) Connect(t testing.TB) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := bus.Connect(bus.ConnectOptions{URL: c.URLs(), Name: "natstest"})
	if err != nil {
		t.Fatalf("connect to cluster: %v", err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatalf("jetstream: %v", err)
	}
	return nc, js
}

// WaitJetStream waits (up to a minute) until the cluster answers
// JetStream API requests, that is until it has a meta leader.
func (c *Cluster) WaitJetStream(t testing.TB) {
	t.Helper()
	_, js := c.Connect(t)
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := js.AccountInfo(ctx)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster has no JetStream meta leader after a minute: %v", err)
		}
		time.Sleep(50 * time.Millisecond) // poll interval
	}
}

// StreamLeader returns the index of the member leading the stream, or -1
// when it has no leader.
func (c *Cluster) StreamLeader(ctx context.Context, js jetstream.JetStream, stream string) int {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return -1
	}
	info := s.CachedInfo()
	if info.Cluster == nil {
		return -1
	}
	return c.Index(info.Cluster.Leader)
}

// ConsumerLeader returns the index of the member leading the consumer, or
// -1 when it has no leader.
func (c *Cluster) ConsumerLeader(ctx context.Context, js jetstream.JetStream, stream, consumer string) int {
	cons, err := js.Consumer(ctx, stream, consumer)
	if err != nil {
		return -1
	}
	info := cons.CachedInfo()
	if info.Cluster == nil {
		return -1
	}
	return c.Index(info.Cluster.Leader)
}
