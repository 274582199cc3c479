package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"

	"github.com/codali-dev/codali/pkg/activity"
)

// CommandResult is the outcome of Run.
type CommandResult struct {
	// ExitCode is the process exit code; -1 when killed (timeout).
	ExitCode int
	// Output is the combined stdout and stderr, keeping the last bytes when
	// longer than the limit.
	Output string
	// Duration is the wall time.
	Duration time.Duration
	// TimedOut reports whether the timeout killed the command.
	TimedOut bool
}

// Run executes argv (no shell) in dir with env without any isolation —
// for trusted programs only: repository code (tests, builds) runs through
// package sandbox (app.Deps.RunCommand). It kills the whole process
// group when timeout passes or ctx ends. A non-zero exit is not an error;
// an error (wrapping ErrCommand) means the command could not be started.
func Run(ctx context.Context, dir string, argv []string, env []string, timeout time.Duration, outputLimit int) (CommandResult, error) {
	if len(argv) == 0 || argv[0] == "" {
		return CommandResult{}, fmt.Errorf("%w: empty command", ErrCommand)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// Kill the group so children (compilers, test binaries) die too.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second
	out := &tailBuffer{limit: outputLimit}
	// Observers (live progress) get the output line by line as it comes.
	lines, flush := activity.Lines(ctx)
	defer flush()
	out.lines = lines
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	err := cmd.Run()
	res := CommandResult{Output: out.String(), Duration: time.Since(start)}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		res.ExitCode, res.TimedOut = -1, true
		res.Output += fmt.Sprintf("\n[killed after %s]", timeout)
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
	default:
		return res, fmt.Errorf("%w: %s: %w", ErrCommand, argv[0], err)
	}
	return res, nil
}

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	limit   int
	buf     bytes.Buffer
	dropped int
	// lines, when set, also receives everything written.
	lines io.Writer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if t.lines != nil {
		_, _ = t.lines.Write(p)
	}
	t.buf.Write(p)
	if t.limit > 0 && t.buf.Len() > 2*t.limit {
		excess := t.buf.Len() - t.limit
		t.dropped += excess
		t.buf.Next(excess)
	}
	return n, nil
}

func (t *tailBuffer) String() string {
	b := t.buf.Bytes()
	dropped := t.dropped
	if t.limit > 0 && len(b) > t.limit {
		dropped += len(b) - t.limit
		b = b[len(b)-t.limit:]
	}
	if dropped > 0 {
		return fmt.Sprintf("[%d bytes elided]\n%s", dropped, b)
	}
	return string(b)
}
