package proctest_test

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/proctest"
)

// lockedBuffer is a bytes.Buffer safe for the child's output goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

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
	out := &lockedBuffer{}
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
