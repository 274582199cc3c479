package natstest

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// layout is what a client knows of a cluster, in-process or made of
// processes: its members' server names (n1, n2, ...) and client ports.
type layout struct {
	ports []int
}

func newLayout(clientPorts []int) layout { return layout{ports: clientPorts} }

// Size is the number of members.
func (l layout) Size() int { return len(l.ports) }

// Name is member i's server name (n1, n2, ...), as JetStream reports
// leaders.
func (l layout) Name(i int) string { return fmt.Sprintf("n%d", i+1) }

// Index returns the member with the given server name, or -1.
func (l layout) Index(name string) int {
	for i := range l.ports {
		if l.Name(i) == name {
			return i
		}
	}
	return -1
}

// URL is member i's client URL.
func (l layout) URL(i int) string { return fmt.Sprintf("nats://127.0.0.1:%d", l.ports[i]) }

// URLs is every member's client URL, comma-separated, as clients are
// given a cluster.
func (l layout) URLs() string {
	urls := make([]string, len(l.ports))
	for i := range l.ports {
		urls[i] = l.URL(i)
	}
	return strings.Join(urls, ",")
}

// FreePorts reserves n distinct free loopback ports.
func FreePorts(t testing.TB, n int) []int {
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

// Connect opens a client connection to every member (reconnecting
// forever, as the services do) and a JetStream handle, closed by t.Cleanup.
func (l layout) Connect(t testing.TB) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := bus.Connect(bus.ConnectOptions{URL: l.URLs(), Name: "natstest"})
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

// ConnectMember opens a client connection to member i alone (no other
// member to fail over to) and a JetStream handle, closed by t.Cleanup: a
// client of one chosen server, e.g. a follower of a stream.
func (l layout) ConnectMember(t testing.TB, i int) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := bus.Connect(bus.ConnectOptions{URL: l.URL(i), Name: "natstest-" + l.Name(i)})
	if err != nil {
		t.Fatalf("connect to member %s: %v", l.Name(i), err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatalf("jetstream: %v", err)
	}
	return nc, js
}

// Follower returns a member that holds a replica of the stream but does
// not lead it, or -1 when the stream has no leader or no follower. A KV
// bucket's stream is "KV_" and the bucket's name.
func (l layout) Follower(ctx context.Context, js jetstream.JetStream, stream string) int {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return -1
	}
	info := s.CachedInfo()
	if info.Cluster == nil || info.Cluster.Leader == "" {
		return -1
	}
	for _, r := range info.Cluster.Replicas {
		if i := l.Index(r.Name); i >= 0 {
			return i
		}
	}
	return -1
}

// Split connects a client to the leader of the stream and another to
// one of its followers: what one writes, the other reads at once, as a
// service reads what another just wrote. It fails the test when the
// stream has no leader or no follower.
func (l layout) Split(t testing.TB, ctx context.Context, stream string) (leader, follower jetstream.JetStream) {
	t.Helper()
	_, js := l.Connect(t)
	li, fi := l.StreamLeader(ctx, js, stream), l.Follower(ctx, js, stream)
	if li < 0 || fi < 0 {
		t.Fatalf("stream %s: leader %d, follower %d", stream, li, fi)
	}
	_, leader = l.ConnectMember(t, li)
	_, follower = l.ConnectMember(t, fi)
	return leader, follower
}

// WaitJetStream waits (up to a minute) until the cluster answers
// JetStream API requests, that is until it has a meta leader.
func (l layout) WaitJetStream(t testing.TB) {
	t.Helper()
	_, js := l.Connect(t)
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
func (l layout) StreamLeader(ctx context.Context, js jetstream.JetStream, stream string) int {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return -1
	}
	info := s.CachedInfo()
	if info.Cluster == nil {
		return -1
	}
	return l.Index(info.Cluster.Leader)
}

// ConsumerLeader returns the index of the member leading the consumer, or
// -1 when it has no leader.
func (l layout) ConsumerLeader(ctx context.Context, js jetstream.JetStream, stream, consumer string) int {
	cons, err := js.Consumer(ctx, stream, consumer)
	if err != nil {
		return -1
	}
	info := cons.CachedInfo()
	if info.Cluster == nil {
		return -1
	}
	return l.Index(info.Cluster.Leader)
}
