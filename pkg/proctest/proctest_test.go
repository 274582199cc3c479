package proctest_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/proctest"
	"github.com/codali-dev/codali/pkg/syncbuf"
)

func binary(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not on PATH", name)
	}
	return p
}

// waitExited polls until p has exited by itself (up to 10 s).
func waitExited(t *testing.T, p *proctest.Process) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !p.Exited() {
		if time.Now().After(deadline) {
			t.Fatal("process did not exit")
		}
		time.Sleep(10 * time.Millisecond) // poll interval
	}
}

func TestKillAndRestart(t *testing.T) {
	p := proctest.New(t, proctest.Spec{Name: "sleeper", Bin: binary(t, "sleep"), Args: []string{"600"}})
	if p.Exited() || p.ExitCode() != -1 {
		t.Fatal("a process not started has not exited")
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); !errors.Is(err, proctest.ErrRunning) {
		t.Fatalf("second start: %v, want ErrRunning", err)
	}
	p.Kill()
	p.Kill() // killing a killed process does nothing
	if p.Exited() {
		t.Fatal("a killed process is not one that exited by itself")
	}
	if err := p.Start(); err != nil {
		t.Fatalf("restart after kill: %v", err)
	}
	if p.Exited() {
		t.Fatal("restarted process exited")
	}
}

func TestExitAndOutput(t *testing.T) {
	out := &syncbuf.Buffer{}
	p := proctest.New(t, proctest.Spec{Name: "sh", Bin: binary(t, "sh"), Args: []string{"-c", `echo "hello $GREETING"; exit 3`},
		Env: []string{"GREETING=world"}, Dir: t.TempDir(), Out: out})
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	waitExited(t, p)
	if code := p.ExitCode(); code != 3 {
		t.Fatalf("exit code %d, want 3", code)
	}
	if got := out.String(); !strings.Contains(got, "hello world") {
		t.Fatalf("output %q", got)
	}
}

func TestStartMissingBinary(t *testing.T) {
	p := proctest.New(t, proctest.Spec{Name: "missing", Bin: t.TempDir() + "/no-such-binary"})
	if err := p.Start(); err == nil || !strings.Contains(err.Error(), "start missing") {
		t.Fatalf("start of a missing binary: %v", err)
	}
}

// TestChildDiesWithItsParent: a child whose parent dies without cleaning
// up (here a shell that starts it, then is killed) is killed too.
func TestChildDiesWithItsParent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("parent-death signal is Linux only")
	}
	out := &syncbuf.Buffer{}
	// The parent is this package's test binary run as a helper: it
	// starts "sleep 600" through proctest and prints its pid.
	p := proctest.New(t, proctest.Spec{Name: "parent", Bin: os.Args[0], Args: []string{"-test.run", "^TestHelperParent$"},
		Env: []string{"PROCTEST_HELPER=1"}, Out: out})
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := fmt.Sscanf(strings.TrimSpace(out.String()), "child %d", &pid); err == nil {
			break
		}
		if time.Now().After(deadline) || p.Exited() {
			t.Fatalf("helper did not start its child: %q", out.String())
		}
		time.Sleep(10 * time.Millisecond) // poll interval
	}
	p.Kill()
	deadline = time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("child %d outlived its killed parent", pid)
		}
		time.Sleep(10 * time.Millisecond) // poll interval
	}
}

// TestHelperParent is the parent of TestChildDiesWithItsParent, run only
// as its helper process: it starts a child and blocks until killed.
func TestHelperParent(t *testing.T) {
	if os.Getenv("PROCTEST_HELPER") == "" {
		t.Skip("helper process of TestChildDiesWithItsParent")
	}
	child := proctest.New(t, proctest.Spec{Name: "child", Bin: binary(t, "sleep"), Args: []string{"600"}})
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("child %d\n", child.Pid())
	select {} // until killed
}
