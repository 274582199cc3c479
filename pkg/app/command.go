package app

import (
	"context"
	"fmt"
	"github.com/codali-dev/codali/pkg/activity"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/sandbox"
	"github.com/codali-dev/codali/pkg/workspace"
)

// NoSandboxWarning is the warning every verdict carries when commands ran
// without isolation (sandbox "none").
const NoSandboxWarning = `commands ran without a sandbox (sandbox: "none"): repository code had the service's privileges`

// NewSandbox builds the command sandbox of cfg. The Go toolchain on PATH
// (its GOROOT) is added to the read-only paths, so `go` works inside.
func NewSandbox(cfg *config.Config) (*sandbox.Sandbox, error) {
	sc := cfg.Sandbox.Config
	sc.ReadOnly = append(append([]string(nil), sc.ReadOnly...), goRoot()...)
	s, err := sandbox.New(sc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", config.ErrInvalid, err)
	}
	return s, nil
}

// Close releases what the dependencies keep on the host: the copy of
// /etc the sandbox binds into its sandboxes. Commands started after it
// fail.
func (d *Deps) Close() {
	_ = d.Sandbox.Close()
}

// goRoot returns the GOROOT of the go command on PATH, when there is one.
func goRoot() []string {
	p, err := exec.LookPath("go")
	if err != nil {
		return nil
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil
	}
	root := filepath.Dir(filepath.Dir(real))
	if fi, err := os.Stat(filepath.Join(root, "src", "runtime")); err != nil || !fi.IsDir() {
		return nil
	}
	return []string{root}
}

// CheckSandbox logs, at start, whether commands can run: where the
// sandbox cannot, every command will be refused (and says why); where it
// is off, every verdict will say so; and where the host's bubblewrap is
// too old for some protection, which ones commands run without.
func (d *Deps) CheckSandbox(ctx context.Context) {
	switch err := d.Sandbox.Check(ctx); {
	case err != nil:
		d.Log.Error("commands will be refused", "err", err)
	case !d.Sandbox.Isolated():
		d.Log.Warn(NoSandboxWarning)
	default:
		if lacks := d.Sandbox.Lacks(); len(lacks) > 0 {
			d.Log.Warn("commands run sandboxed without what this bubblewrap cannot give", "lacking", strings.Join(lacks, "; "))
		}
	}
}

// RunCommand runs argv in ws through the sandbox: the workspace and its
// caches writable, the environment reduced to toolchain settings, the
// network only when the policy grants it to argv. Errors wrap
// sandbox.ErrUnavailable, sandbox.ErrCommand or sandbox.ErrInvalid.
func (d *Deps) RunCommand(ctx context.Context, ws *workspace.Workspace, argv []string, timeout time.Duration, outputLimit int) (sandbox.Result, error) {
	return d.runCommand(ctx, d.Policy, ws, argv, timeout, outputLimit)
}

func (d *Deps) runCommand(ctx context.Context, pol *policy.Policy, ws *workspace.Workspace, argv []string, timeout time.Duration, outputLimit int) (sandbox.Result, error) {
	c, err := ws.Command(d.Getenv)
	if err != nil {
		return sandbox.Result{}, err
	}
	// Live progress observers get the output line by line as it comes.
	lines, flush := activity.Lines(ctx)
	defer flush()
	return d.Sandbox.Run(ctx, sandbox.Spec{
		Dir: ws.Dir, Writable: c.Writable, ReadOnly: c.ReadOnly, Argv: argv, Env: c.Env,
		Network: pol.NetworkAllowed(argv), Timeout: timeout, OutputLimit: outputLimit, Output: lines,
	})
}
