package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/sandbox"
)

// TestTimeoutBeforeTheSandboxStartsIsATimeout: a command whose time runs
// out (or whose context ends, as on shutdown) while its sandbox is still
// being made is a command killed, as it was when a prlimit program
// started it: not an unavailable sandbox, which a phase takes as final.
func TestTimeoutBeforeTheSandboxStartsIsATimeout(t *testing.T) {
	s := bwrapSandbox(t, sandbox.Limits{CPUSeconds: 5})
	if !sandbox.LimitsInside(s) {
		t.Skip("limits are set by the prlimit program here")
	}
	// A bwrap that never reports its sandbox.
	slow := filepath.Join(t.TempDir(), "bwrap")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sandbox.SetBwrap(s, slow)
	res, err := s.Run(context.Background(), sandbox.Spec{Argv: []string{"true"}, Dir: t.TempDir(), Env: env(),
		Timeout: 200 * time.Millisecond, OutputLimit: 1024})
	if err != nil {
		t.Fatalf("a timeout is an error: %v", err)
	}
	if !res.TimedOut {
		t.Fatalf("not reported as timed out: %+v", res)
	}
}

// TestSandboxGoneBeforeItsLimitsIsBwrapsExit: a sandboxed process that is
// gone before its limits are set (bubblewrap failed making the sandbox)
// ran no command; the result is bubblewrap's own exit, not an
// unavailable sandbox.
func TestSandboxGoneBeforeItsLimitsIsBwrapsExit(t *testing.T) {
	s := bwrapSandbox(t, sandbox.Limits{CPUSeconds: 5})
	if !sandbox.LimitsInside(s) {
		t.Skip("limits are set by the prlimit program here")
	}
	// A bwrap whose sandboxed process is gone (no such pid) and which
	// fails.
	gone := filepath.Join(t.TempDir(), "bwrap")
	if err := os.WriteFile(gone, []byte("#!/bin/sh\necho '{\"child-pid\": 999999999}' >&3\necho 'bwrap: setup failed' >&2\nexit 7\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sandbox.SetBwrap(s, gone)
	res, err := s.Run(context.Background(), sandbox.Spec{Argv: []string{"true"}, Dir: t.TempDir(), Env: env(),
		Timeout: time.Minute, OutputLimit: 1024})
	if err != nil {
		t.Fatalf("bubblewrap's failure is an error: %v", err)
	}
	if res.ExitCode != 7 {
		t.Fatalf("exit %d, want bubblewrap's 7: %+v", res.ExitCode, res)
	}
}
