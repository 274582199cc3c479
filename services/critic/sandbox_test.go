package critic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/sandbox"
	"github.com/codali-dev/codali/pkg/worker"
)

// A check runs repository code in the sandbox: a `go test` the change
// adds cannot read a credentials file outside the workspace, nor the
// environment of a host process holding a secret (as the services do).
func TestChecksCannotReachHostSecrets(t *testing.T) {
	d := newDeps(t, `{}`)
	if !d.Sandbox.Isolated() {
		t.Skip("bubblewrap cannot run here")
	}
	const secret = "SUAMSEED-7f3a"
	creds := filepath.Join(t.TempDir(), "service.creds")
	if err := os.WriteFile(creds, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	holder := exec.Command("sleep", "300")
	holder.Env = []string{"NATS_PASSWORD=" + secret}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	steal := fmt.Sprintf(`package hello

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSteal(t *testing.T) {
	if b, err := os.ReadFile(%q); err == nil {
		t.Fatalf("read the creds: %%s", b)
	}
	envs, _ := filepath.Glob("/proc/*/environ")
	envs = append(envs, "/proc/%d/environ")
	for _, p := range envs {
		if b, _ := os.ReadFile(p); strings.Contains(string(b), %q) {
			t.Fatalf("read a secret from %%s", p)
		}
	}
}
`, creds, holder.Process.Pid, secret)
	repo := copyHello(t)
	ch := change(t, repo, map[string]string{"greet.go": goodGreet, "steal_test.go": steal})
	in := built(t, "creds", 1, repo, 3, ch, []events.VerifyCommand{{Name: "go test", Command: []string{"go", "test", "-run", "TestSteal", "./..."}, TimeoutMS: 300000}}, nil)
	in = withTargets(t, in, "steal_test.go")
	outs, err := handler(t, d)(compileCtx(t), in)
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := outs[0].Kind(); k != events.KindPassed {
		t.Fatalf("the check reached a host secret or failed: %s", outs[0].Data)
	}
}

// compileCtx is the handler context of checks that run `go test`: every
// workspace has its own build cache, so the standard library is compiled
// afresh, which takes minutes on a loaded machine.
func compileCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// With sandbox "none" every verdict says so, and a pass is amber.
func TestNoSandboxSaysSoInEveryVerdict(t *testing.T) {
	d := newDeps(t, `{"sandbox": "none"}`)
	repo := copyHello(t)
	ch := change(t, repo, map[string]string{"greet.go": goodGreet})
	in := built(t, "nosb", 1, repo, 0, ch, []events.VerifyCommand{verify("greets", "grep", "-q", "Hello, ", "greet.go")}, nil)
	var v events.VerdictData
	if err := json.Unmarshal(output(t, mustHandle(t, handler(t, d), in), in, events.KindPassed, 1), &v); err != nil {
		t.Fatal(err)
	}
	if v.Integrity != events.IntegrityAmber || !slices.Contains(v.Warnings, app.NoSandboxWarning) {
		t.Fatalf("pass without a sandbox: integrity %s, warnings %q", v.Integrity, v.Warnings)
	}
	in = built(t, "nosb-fail", 1, repo, 0, ch, []events.VerifyCommand{verify("missing", "grep", "-q", "Goodbye", "greet.go")}, nil)
	if err := json.Unmarshal(output(t, mustHandle(t, handler(t, d), in), in, events.KindFailed, 1), &v); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(v.Warnings, app.NoSandboxWarning) {
		t.Fatalf("failure without a sandbox does not say so: %q", v.Warnings)
	}
}

// Where the sandbox cannot run, checks are refused and the run ends with
// the reason, instead of running unsandboxed.
func TestUnavailableSandboxRefusesChecks(t *testing.T) {
	d := newDeps(t, `{}`)
	sb, err := sandbox.New(sandbox.Config{Bwrap: "/nonexistent/bwrap"})
	if err != nil {
		t.Fatal(err)
	}
	d.Sandbox = sb
	repo := copyHello(t)
	ch := change(t, repo, map[string]string{"greet.go": goodGreet})
	in := built(t, "unavail", 1, repo, 3, ch, []events.VerifyCommand{verify("ok", "grep", "-q", "Greet", "greet.go")}, nil)
	_, err = handler(t, d)(testCtx(t), in)
	if !errors.Is(err, sandbox.ErrUnavailable) || !errors.Is(err, worker.ErrPermanent) {
		t.Fatalf("err = %v, want a permanent ErrUnavailable", err)
	}
}
