package app

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/sandbox"
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

// CheckSandbox says at start what the sandbox runs commands without
// because the host's bubblewrap cannot give it.
func TestCheckSandboxWarnsOfWhatBubblewrapLacks(t *testing.T) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("no bubblewrap here")
	}
	old := filepath.Join(t.TempDir(), "bwrap")
	script := "#!/bin/sh\nfor a; do case \"$a\" in --disable-userns|--size) echo \"bwrap: Unknown option $a\" >&2; exit 1;; esac; done\nexec " + bwrap + " \"$@\"\n"
	if err := os.WriteFile(old, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Sandbox.Bwrap = old
	s, err := NewSandbox(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	var logs bytes.Buffer
	d := &Deps{Sandbox: s, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	d.CheckSandbox(context.Background())
	if strings.Contains(logs.String(), "commands will be refused") {
		t.Skipf("bubblewrap cannot run here: %s", logs.String())
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), sandbox.LackTmpSize) || !strings.Contains(logs.String(), sandbox.LackUserns) {
		t.Fatalf("logs:\n%s", logs.String())
	}
}
