// Package apptest builds real service dependencies for tests: an embedded
// JetStream server (random port, temporary store) with Codali's streams
// and buckets provisioned, a parsed configuration, a temporary workspace
// root and a fixed clock. It never mocks NATS. It also copies the bundled
// example repository for tests that need a real repository.
package apptest

import (
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/natstest"
)

// Now is the fixed clock of the dependencies Deps builds.
func Now() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }

// Options adjust Deps.
type Options struct {
	// Script is the bundled script the scripted provider falls back to.
	Script *llm.Script
	// Getenv is the environment the services see (default: empty).
	Getenv func(string) string
	// PolicyJSON, when set and the configuration names no policy, is
	// written to a file and used as the policy.
	PolicyJSON string
}

// Ctx returns a context that ends with the test (at most one minute).
func Ctx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// Deps starts an embedded server, provisions it, parses cfgJSON and
// builds the shared dependencies with a discarding logger and the fixed
// clock. The test fails on any error.
func Deps(t testing.TB, cfgJSON string, o Options) *app.Deps {
	t.Helper()
	ctx := Ctx(t)
	_, _, js := natstest.StartJS(t)
	if err := bus.Provision(ctx, js, bus.Topology{}, nil); err != nil {
		t.Fatalf("provision: %v", err)
	}
	cfg, err := config.Parse([]byte(cfgJSON))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	if cfg.Policy == "" && o.PolicyJSON != "" {
		cfg.Policy = filepath.Join(t.TempDir(), "policy.json")
		if err := os.WriteFile(cfg.Policy, []byte(o.PolicyJSON), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Workspace.Root = t.TempDir()
	ChooseSandbox(t, cfg)
	if cfg.Librarian.IndexCacheDir == "" {
		// Tests never write to the user's cache directory.
		cfg.Librarian.IndexCacheDir = t.TempDir()
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	d, err := app.NewDeps(ctx, cfg, js, slog.New(slog.DiscardHandler), Now, getenv, o.Script)
	if err != nil {
		t.Fatalf("NewDeps: %v", err)
	}
	t.Cleanup(d.Close)
	// Registered after the workspace root: runs before it is removed.
	t.Cleanup(d.Workspaces.Wait)
	return d
}

// CopyHello copies the bundled example repository (examples/hello) into a
// temporary directory and returns its path.
func CopyHello(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the example repository")
	}
	src := filepath.Join(filepath.Dir(file), "..", "..", "examples", "hello")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy example: %v", err)
	}
	return dst
}
