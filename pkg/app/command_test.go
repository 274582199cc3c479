package app

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/workspace"
)

// interfaces lists the network interfaces of /proc/net/dev output.
func interfaces(out string) []string {
	var names []string
	for _, line := range strings.Split(out, "\n") {
		if name, _, ok := strings.Cut(line, ":"); ok && !strings.Contains(name, "|") {
			names = append(names, strings.TrimSpace(name))
		}
	}
	return names
}

// RunCommand gives a command the network only when the policy grants it
// to that command, and the workspace's own caches, never the host's.
func TestRunCommandNetworkGrantAndCaches(t *testing.T) {
	host, err := os.ReadFile("/proc/net/dev")
	if err != nil || len(interfaces(string(host))) < 2 {
		t.Skip("this host has no network interface besides loopback")
	}
	cfg := config.Default()
	s, err := NewSandbox(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ctx := context.Background()
	if err := s.Check(ctx); err != nil {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
	pol := policy.Default()
	granted := []string{"cat", "/proc/net/dev"}
	pol.Commands.Network = [][]string{granted}
	d := &Deps{Getenv: os.Getenv, Sandbox: s, Policy: pol}
	repo := t.TempDir()
	if err := os.WriteFile(repo+"/a.txt", []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &workspace.Manager{Root: t.TempDir()}
	ws, err := m.Prepare(ctx, "run1", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	run := func(argv ...string) string {
		t.Helper()
		res, err := d.RunCommand(ctx, ws, argv, time.Minute, 64<<10)
		if err != nil || res.ExitCode != 0 || !res.Sandboxed {
			t.Fatalf("%v: %+v %v", argv, res, err)
		}
		return res.Output
	}
	if got := interfaces(run(granted...)); len(got) < 2 {
		t.Fatalf("granted command has interfaces %v", got)
	}
	if got := interfaces(run("cat", "/proc/self/net/dev")); len(got) != 1 || got[0] != "lo" {
		t.Fatalf("ungranted command has interfaces %v, want only lo", got)
	}
	env := run("env")
	for _, k := range []string{"HOME=", "GOCACHE=", "GOMODCACHE=", "TMPDIR="} {
		if !strings.Contains(env, k+ws.CacheDir()+"/") {
			t.Errorf("%s not in the workspace's cache:\n%s", k, env)
		}
	}
}
