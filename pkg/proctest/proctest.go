// Package proctest runs child processes for tests that need real ones: a
// process is started from a binary with arguments and environment, can be
// killed with SIGKILL (no chance to close connections or hand anything
// over) and started again with the same command line, and is killed by
// t.Cleanup whatever happens. Its standard output and error go to a
// writer the test chooses.
package proctest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
)

// ErrRunning is returned by Start for a process that is already running.
var ErrRunning = errors.New("process already running")

// Process is a restartable child process.
type Process struct {
	// Name labels the process in errors.
	Name string
	bin  string
	args []string
	env  []string
	dir  string
	out  io.Writer

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// Spec describes a process to run.
type Spec struct {
	// Name labels the process in errors and output.
	Name string
	// Bin is the executable; Args its arguments.
	Bin  string
	Args []string
	// Env is added to a minimal environment (PATH and HOME of the test).
	Env []string
	// Dir is the working directory ("" = the test's).
	Dir string
	// Out receives standard output and error (nil = discarded).
	Out io.Writer
}

// New returns the process described by s, not started. t.Cleanup kills
// it if it runs when the test ends.
func New(t testing.TB, s Spec) *Process {
	t.Helper()
	p := &Process{Name: s.Name, bin: s.Bin, args: s.Args, env: s.Env, dir: s.Dir, out: s.Out}
	if p.out == nil {
		p.out = io.Discard
	}
	t.Cleanup(p.Kill)
	return p
}

// Start starts the process.
func (p *Process) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		return fmt.Errorf("%s: %w", p.Name, ErrRunning)
	}
	cmd := exec.Command(p.bin, p.args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, p.env...)
	cmd.Dir = p.dir
	cmd.SysProcAttr = sysProcAttr()
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait() // the exit status of a killed or crashed child is expected
		close(done)
	}()
	p.cmd, p.done = cmd, done
	return nil
}

// Kill sends SIGKILL and waits until the process has exited. Killing a
// process that is not running does nothing.
func (p *Process) Kill() {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.cmd, p.done = nil, nil
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGKILL) // fails only if it has already exited
	<-done
}

// Exited reports whether the process was started and has exited by
// itself (it was not killed by Kill).
func (p *Process) Exited() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done == nil {
		return false
	}
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Pid is the process id of the running process, or 0.
func (p *Process) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// ExitCode is the exit code of a process that has exited by itself, or -1.
func (p *Process) ExitCode() int {
	if !p.Exited() {
		return -1
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd.ProcessState.ExitCode()
}
