package natstest

import (
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/proctest"
)

// ProcessCluster is a JetStream cluster of nats-server processes (the
// binary is the caller's) with routes on loopback, each with its store in
// a temporary directory. A member is killed with SIGKILL, as a crashed
// machine: it closes no connection and hands no leadership over. Every
// member is killed by t.Cleanup.
type ProcessCluster struct {
	layout
	members []*proctest.Process
}

// StartProcessCluster starts an n-member cluster of the nats-server binary
// bin and waits until it has a JetStream meta leader. The members' output
// goes to out (nil = discarded), which must be safe for concurrent writes.
func StartProcessCluster(t testing.TB, bin string, n int, out io.Writer) *ProcessCluster {
	t.Helper()
	clientPorts, routePorts := FreePorts(t, n), FreePorts(t, n)
	routes := make([]string, n)
	for i := range n {
		routes[i] = "nats-route://127.0.0.1:" + strconv.Itoa(routePorts[i])
	}
	c := &ProcessCluster{layout: newLayout(clientPorts)}
	for i := range n {
		dir := t.TempDir()
		args := []string{"-js", "-sd", filepath.Join(dir, "jetstream"), "-a", "127.0.0.1", "-p", strconv.Itoa(clientPorts[i]),
			"-n", c.Name(i)}
		if n > 1 {
			args = append(args, "--cluster_name", "codali-chaos", "--cluster", "nats://127.0.0.1:"+strconv.Itoa(routePorts[i]),
				"--routes", strings.Join(routes, ","))
		}
		c.members = append(c.members, proctest.New(t, proctest.Spec{Name: c.Name(i), Bin: bin, Args: args, Out: out}))
	}
	for i := range n {
		if err := c.members[i].Start(); err != nil {
			t.Fatalf("start cluster: %v", err)
		}
	}
	for i := range n {
		c.waitListening(t, i)
	}
	c.WaitJetStream(t)
	return c
}

// waitListening waits (up to 30 s) until member i accepts client
// connections.
func (c *ProcessCluster) waitListening(t testing.TB, i int) {
	t.Helper()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(c.ports[i]))
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = conn.Close()
			return
		}
		if c.members[i].Exited() {
			t.Fatalf("nats-server %s exited with %d", c.Name(i), c.members[i].ExitCode())
		}
		if time.Now().After(deadline) {
			t.Fatalf("nats-server %s does not listen on %s: %v", c.Name(i), addr, err)
		}
		time.Sleep(20 * time.Millisecond) // poll interval
	}
}

// Kill sends SIGKILL to member i and waits until it has exited.
func (c *ProcessCluster) Kill(i int) { c.members[i].Kill() }

// Restart starts a killed member again on its ports and store, and waits
// until it accepts connections.
func (c *ProcessCluster) Restart(t testing.TB, i int) {
	t.Helper()
	if err := c.members[i].Start(); err != nil {
		t.Fatalf("restart: %v", err)
	}
	c.waitListening(t, i)
}

// Members is every member's process (for their exit state).
func (c *ProcessCluster) Members() []*proctest.Process { return c.members }
