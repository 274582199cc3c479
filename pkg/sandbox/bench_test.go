package sandbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/sandbox"
)

// benchRun measures one trivial command (`true`) through s: what every
// check and run_command pays before the command itself does anything.
func benchRun(b *testing.B, s *sandbox.Sandbox) {
	if err := s.Check(context.Background()); err != nil {
		b.Skipf("sandbox unavailable: %v", err)
	}
	dir := b.TempDir()
	spec := sandbox.Spec{Dir: dir, Argv: []string{"true"}, Env: env(), Timeout: time.Minute, OutputLimit: 4096}
	b.ResetTimer()
	for range b.N {
		res, err := s.Run(context.Background(), spec)
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// BenchmarkRunBwrap is the full sandbox: bubblewrap with its namespaces
// (user, pid, ipc, uts, net, cgroup), mounts and /proc, the limits set on
// the sandboxed process from this one.
func BenchmarkRunBwrap(b *testing.B) {
	s, err := sandbox.New(sandbox.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	benchRun(b, s)
}

// BenchmarkRunBwrapPrlimit is the same with the limits set by the prlimit
// program around bwrap (the way taken where they cannot be set from here).
func BenchmarkRunBwrapPrlimit(b *testing.B) {
	s, err := sandbox.New(sandbox.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	sandbox.UsePrlimitProgram(s)
	benchRun(b, s)
}

// BenchmarkRunNone is the same command without isolation (prlimit only):
// the difference to BenchmarkRunBwrap is what isolation costs.
func BenchmarkRunNone(b *testing.B) {
	s, err := sandbox.New(sandbox.Config{Mode: sandbox.ModeNone})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	benchRun(b, s)
}
