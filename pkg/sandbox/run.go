package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Spec is one command to run.
type Spec struct {
	// Dir is the working directory, an absolute path; it is bound
	// read-write.
	Dir string
	// Writable lists more absolute host paths bound read-write (per-run
	// caches). They must exist.
	Writable []string
	// ReadOnly lists more absolute host paths bound read-only for this
	// command (for instance a shared module cache). Missing ones are
	// skipped.
	ReadOnly []string
	// Argv is the command, run without a shell.
	Argv []string
	// Env is the command's whole environment.
	Env []string
	// Network grants the command the host's network; without it the
	// sandbox has only its own loopback.
	Network bool
	// Timeout bounds the wall time; the process tree is killed then.
	Timeout time.Duration
	// OutputLimit keeps this many bytes of the combined output (the tail).
	OutputLimit int
	// Output, when set, also receives the whole combined output as it
	// comes (live progress), from one goroutine.
	Output io.Writer
}

// Result is the outcome of a command.
type Result struct {
	// ExitCode is the exit code; -1 when killed on timeout; 128+n when
	// killed by signal n.
	ExitCode int
	// Output is the combined stdout and stderr, keeping the last
	// OutputLimit bytes, with notes about elided bytes, timeouts and
	// limits hit.
	Output string
	// Duration is the wall time.
	Duration time.Duration
	// TimedOut reports whether the timeout killed the command.
	TimedOut bool
	// Limit names the resource limit that ended the command ("cpu",
	// "file size", "in-memory directory"), empty when none is known to
	// have.
	Limit string
	// Sandboxed reports whether the command ran isolated.
	Sandboxed bool
}

// drainAfterExit bounds how long output is still read after the command
// returned and its process group was killed (a process that escaped the
// group could hold the pipe open).
const drainAfterExit = 2 * time.Second

// Run executes spec.Argv in the sandbox. A non-zero exit is not an error;
// an error wraps ErrUnavailable (the sandbox cannot run here), ErrInvalid
// (bad spec) or ErrCommand (the command cannot be started).
func (s *Sandbox) Run(ctx context.Context, spec Spec) (Result, error) {
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return Result{}, fmt.Errorf("%w: empty command", ErrCommand)
	}
	if !filepath.IsAbs(spec.Dir) {
		return Result{}, fmt.Errorf("%w: directory %q is not absolute", ErrInvalid, spec.Dir)
	}
	for _, p := range append(append([]string(nil), spec.Writable...), spec.ReadOnly...) {
		if !filepath.IsAbs(p) {
			return Result{}, fmt.Errorf("%w: bind %q is not absolute", ErrInvalid, p)
		}
	}
	if err := s.Check(ctx); err != nil {
		return Result{}, err
	}
	if err := lookPath(spec.Argv[0], spec.Dir, spec.Env); err != nil {
		return Result{}, err
	}
	return s.run(ctx, spec)
}

func (s *Sandbox) run(ctx context.Context, spec Spec) (Result, error) {
	var argv []string
	inside := s.Isolated() && s.limitInside
	if s.havePrlimit && !inside {
		argv = append(append([]string{s.cfg.Prlimit}, s.limits.prlimitArgs()...), "--")
	}
	// Descriptors passed to bwrap, from 3 on.
	var extra []*os.File
	var gate *limitGate
	if inside {
		var err error
		if gate, err = newLimitGate(); err != nil {
			return Result{}, fmt.Errorf("%w: %w", ErrCommand, err)
		}
		defer gate.close()
		extra = gate.childFiles()
	}
	if s.Isolated() {
		etc, release, err := s.etc.acquire()
		if err != nil {
			return Result{}, fmt.Errorf("%w: %w", ErrUnavailable, &etcViewError{err})
		}
		defer release()
		bw := s.bwrapArgs(spec, etc)
		if inside {
			// The sandboxed process reports its pid on fd 3 and waits on fd
			// 4 before it runs the command, so its limits are set before
			// the command starts (and no prlimit process is needed).
			bw = append([]string{bw[0], "--info-fd", "3", "--block-fd", "4"}, bw[1:]...)
		}
		argv = append(argv, bw...)
	}
	argv = append(argv, spec.Argv...)
	ctx, cancel := context.WithTimeout(ctx, spec.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	cmd.ExtraFiles = extra
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	// The output goes through a pipe this function reads itself, so Wait
	// returns when the command does, whatever its children do.
	r, w, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrCommand, err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	out := &tailBuffer{limit: spec.OutputLimit}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var w io.Writer = out
		if spec.Output != nil {
			w = io.MultiWriter(out, spec.Output)
		}
		_, _ = io.Copy(w, r)
	}()
	start := time.Now()
	closeInheritedOnExec()
	err = cmd.Start()
	_ = w.Close()
	if err != nil {
		_ = r.Close()
		<-done
		return Result{}, fmt.Errorf("%w: %s: %w", ErrCommand, spec.Argv[0], err)
	}
	var limitErr error
	if gate != nil {
		if limitErr = gate.release(ctx, s.limits.rlimits()); limitErr != nil {
			_ = killGroup(cmd.Process.Pid)
		}
	}
	err = cmd.Wait()
	// Whatever the command left behind in its group dies now (in a bwrap
	// sandbox the pid namespace has already taken every process with it).
	_ = killGroup(cmd.Process.Pid)
	_ = r.SetReadDeadline(time.Now().Add(drainAfterExit))
	<-done
	_ = r.Close()
	// Time that ran out (or a context that ended) while the sandbox was
	// being made is a command killed, as below; any other failure to set
	// the limits is the sandbox unavailable.
	if limitErr != nil && ctx.Err() == nil {
		return Result{}, fmt.Errorf("%w: %w", ErrUnavailable, limitErr)
	}
	res := Result{Output: out.String(), Duration: time.Since(start), Sandboxed: s.Isolated()}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() != nil && errors.As(err, &exitErr):
		res.ExitCode, res.TimedOut = -1, true
		res.Output += fmt.Sprintf("\n[killed after %s]", spec.Timeout)
	case errors.As(err, &exitErr):
		res.ExitCode = exitCode(exitErr)
	default:
		return res, fmt.Errorf("%w: %s: %w", ErrCommand, spec.Argv[0], err)
	}
	s.explain(&res)
	return res, nil
}

// exitCode maps a signal death to 128+signal, as shells and bwrap do.
func exitCode(e *exec.ExitError) int {
	if ws, ok := e.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return e.ExitCode()
}

// explain names the limit a failed command most likely hit.
func (s *Sandbox) explain(res *Result) {
	if res.ExitCode == 0 || res.TimedOut {
		return
	}
	lower := strings.ToLower(res.Output)
	switch {
	case res.ExitCode == 128+int(syscall.SIGXCPU) || (res.ExitCode == 128+int(syscall.SIGKILL) && s.limits.CPUSeconds > 0 && res.Duration >= time.Duration(s.limits.CPUSeconds)*time.Second):
		res.Limit = "cpu"
		res.Output += fmt.Sprintf("\n[sandbox: CPU time limit of %ds per process exceeded]", s.limits.CPUSeconds)
	case res.ExitCode == 128+int(syscall.SIGXFSZ):
		res.Limit = "file size"
		res.Output += fmt.Sprintf("\n[sandbox: file size limit of %d bytes exceeded]", s.limits.FileBytes)
	case s.limits.TmpBytes > 0 && strings.Contains(lower, "no space left on device"):
		res.Limit = "in-memory directory"
		res.Output += fmt.Sprintf("\n[sandbox: /tmp, /var/tmp, /run and /dev/shm may be full: they hold at most %d bytes each (tmpBytes); the workspace and $TMPDIR are on disk]", s.limits.TmpBytes)
	case strings.Contains(lower, "out of memory") || strings.Contains(lower, "cannot allocate memory"):
		res.Limit = "memory"
		res.Output += fmt.Sprintf("\n[sandbox: memory may be limited: address space %d bytes per process]", s.limits.MemoryBytes)
	case strings.Contains(lower, "resource temporarily unavailable"):
		res.Limit = "processes"
		res.Output += fmt.Sprintf("\n[sandbox: processes may be limited: %d]", s.limits.Processes)
	}
}

// killGroup kills a process group; a group already gone is no error.
func killGroup(pid int) error {
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
