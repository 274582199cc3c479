package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// gitTimeout bounds one git process.
const gitTimeout = 5 * time.Minute

// gitSafeConfig is passed to every git process: a fixed identity, and
// nothing a repository or the host could use to run a program (hooks,
// fsmonitor, external diff, ext:: transport) or to alias metadata paths.
var gitSafeConfig = []string{
	"-c", "user.name=codali", "-c", "user.email=codali@localhost",
	"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
	"-c", "core.untrackedCache=false", "-c", "core.protectHFS=true", "-c", "core.protectNTFS=true",
	"-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", "-c", "init.defaultBranch=main",
	"-c", "protocol.ext.allow=never", "-c", "gc.auto=0", "-c", "maintenance.auto=false",
	// A file whose stat data differs from the index but whose content
	// does not is no change (workspaces are copies: every stat differs).
	"-c", "diff.autoRefreshIndex=true",
}

// runGit runs git for the workspace (see gitRun.run): GIT_DIR=gitDir
// (none when empty) with the work tree as GIT_WORK_TREE.
func (w *Workspace) runGit(ctx context.Context, dir, gitDir string, limit int64, args ...string) (string, error) {
	return gitRun{git: w.git, gitDir: gitDir, workTree: w.Dir, scratch: filepath.Dir(w.Dir)}.run(ctx, dir, limit, args...)
}

// gitRun is the repository a git process works on.
type gitRun struct {
	git      string // executable
	gitDir   string // GIT_DIR; empty for none (clone)
	workTree string // GIT_WORK_TREE, with gitDir
	scratch  string // HOME and XDG_CONFIG_HOME
	// protocols is the GIT_ALLOW_PROTOCOL list (see cloneProtocols);
	// empty means the remote transports only.
	protocols string
}

// run runs git in dir with gitSafeConfig, no user or system configuration,
// no system attributes file and a scratch HOME. With a gitDir the repository is GIT_DIR=gitDir with
// GIT_WORK_TREE=workTree, so no .git in the work tree is ever consulted.
// Standard output larger than limit is an error wrapping ErrTooLarge
// (never cut); a failure carries the tail of standard error.
func (g gitRun) run(ctx context.Context, dir string, limit int64, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.git, append(append([]string(nil), gitSafeConfig...), args...)...)
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + g.scratch, "XDG_CONFIG_HOME=" + g.scratch,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_ATTR_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_DATE=2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2000-01-01T00:00:00Z",
		"GIT_ALLOW_PROTOCOL=" + g.allowedProtocols(),
	}
	if g.gitDir != "" {
		cmd.Env = append(cmd.Env, "GIT_DIR="+g.gitDir, "GIT_WORK_TREE="+g.workTree)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out := &capBuffer{limit: limit}
	errOut := &capBuffer{limit: 4 << 10} // the start of standard error: git's reason
	cmd.Stdout, cmd.Stderr = out, errOut
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case out.over:
		return "", fmt.Errorf("%w: git %s printed more than %d bytes", ErrTooLarge, args[0], limit)
	case err == nil:
		return out.buf.String(), nil
	case errors.As(err, &exitErr) && ctx.Err() == nil:
		return "", fmt.Errorf("%w: git %s exited %d: %s", ErrGit, args[0], exitErr.ExitCode(), strings.TrimSpace(errOut.buf.String()))
	default:
		return "", fmt.Errorf("%w: git %s: %w", ErrGit, args[0], errors.Join(err, ctx.Err()))
	}
}

// capBuffer keeps up to limit bytes and records whether more came.
type capBuffer struct {
	limit int64
	buf   bytes.Buffer
	over  bool
}

func (c *capBuffer) Write(p []byte) (int, error) {
	if c.over || int64(c.buf.Len()+len(p)) > c.limit {
		c.over = true
		return len(p), nil
	}
	return c.buf.Write(p)
}
