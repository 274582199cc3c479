package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/sandbox"
	"golang.org/x/sys/unix"
)

// helperEnv makes the test binary act as a small program inside a
// sandbox (see TestMain).
const helperEnv = "SANDBOX_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(m.Run())
}

// helper: "connect:ADDR" dials ADDR and reports.
func helper(mode string) int {
	if addr, ok := strings.CutPrefix(mode, "connect:"); ok {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			fmt.Println("dial failed:", err)
			return 3
		}
		_ = c.Close()
		fmt.Println("connected")
		return 0
	}
	fmt.Println("unknown helper mode", mode)
	return 2
}

const secret = "s3cr3t-value-4f9a"

func env() []string { return []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp"} }

// bwrapSandbox returns a bwrap sandbox, skipping the test when this host
// cannot run bubblewrap (no user namespaces) unless CODALI_REQUIRE_SANDBOX
// is set.
func bwrapSandbox(t *testing.T, lim sandbox.Limits) *sandbox.Sandbox {
	t.Helper()
	s, err := sandbox.New(sandbox.Config{Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Check(context.Background()); err != nil {
		if os.Getenv("CODALI_REQUIRE_SANDBOX") != "" {
			t.Fatal(err)
		}
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
	return s
}

func noneSandbox(t *testing.T) *sandbox.Sandbox {
	t.Helper()
	s, err := sandbox.New(sandbox.Config{Mode: sandbox.ModeNone})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func run(t *testing.T, s *sandbox.Sandbox, spec sandbox.Spec) sandbox.Result {
	t.Helper()
	if spec.Dir == "" {
		spec.Dir = t.TempDir()
	}
	if spec.Env == nil {
		spec.Env = env()
	}
	if spec.Timeout == 0 {
		spec.Timeout = 60 * time.Second
	}
	if spec.OutputLimit == 0 {
		spec.OutputLimit = 64 << 10
	}
	res, err := s.Run(context.Background(), spec)
	if err != nil {
		t.Fatalf("%v: %v", spec.Argv, err)
	}
	return res
}

func sh(script string) []string { return []string{"sh", "-c", script} }

func TestRunsAndReportsExit(t *testing.T) {
	s := bwrapSandbox(t, sandbox.Limits{})
	dir := t.TempDir()
	res := run(t, s, sandbox.Spec{Dir: dir, Argv: sh("echo out; echo err >&2; echo data > made.txt; exit 3")})
	if res.ExitCode != 3 || !strings.Contains(res.Output, "out") || !strings.Contains(res.Output, "err") || !res.Sandboxed {
		t.Fatalf("%+v", res)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "made.txt")); err != nil || string(b) != "data\n" {
		t.Fatalf("the working directory is not writable through: %q %v", b, err)
	}
	if _, err := s.Run(context.Background(), sandbox.Spec{Dir: dir, Argv: []string{"no-such-program-xyz"}, Env: env(), Timeout: time.Second}); !errors.Is(err, sandbox.ErrCommand) {
		t.Fatalf("missing program: %v", err)
	}
	if _, err := s.Run(context.Background(), sandbox.Spec{Dir: dir, Env: env(), Timeout: time.Second}); !errors.Is(err, sandbox.ErrCommand) {
		t.Fatalf("empty command: %v", err)
	}
	if _, err := s.Run(context.Background(), sandbox.Spec{Dir: "rel", Argv: []string{"true"}, Env: env(), Timeout: time.Second}); !errors.Is(err, sandbox.ErrInvalid) {
		t.Fatalf("relative dir: %v", err)
	}
}

// The host's /proc is not visible: no process's environment leaks
// secrets. A process started with a secret in its environment stands for
// the Codali service (whose model keys and NATS password are in its
// initial environment; /proc/<pid>/environ shows exactly that).
func TestCannotReadParentEnviron(t *testing.T) {
	holder := exec.Command("sleep", "300")
	holder.Env = []string{"CODALI_TEST_SECRET=" + secret}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	s := bwrapSandbox(t, sandbox.Limits{})
	probe := sh(fmt.Sprintf("cat /proc/%d/environ; cat /proc/%d/environ; for f in /proc/[0-9]*/environ; do cat $f; done; env; ls /proc", holder.Process.Pid, os.Getpid()))
	// Control: unsandboxed, the probe finds the secret (so it can fail).
	if res := run(t, noneSandbox(t), sandbox.Spec{Argv: probe}); !strings.Contains(res.Output, secret) {
		t.Fatalf("the probe does not find the secret even unsandboxed:\n%s", res.Output)
	}
	res := run(t, s, sandbox.Spec{Argv: probe})
	if strings.Contains(res.Output, secret) {
		t.Fatalf("the secret leaked into the sandbox:\n%s", res.Output)
	}
	for _, f := range strings.Fields(res.Output) {
		if f == fmt.Sprint(holder.Process.Pid) {
			t.Fatalf("the host's pid %s is visible:\n%s", f, res.Output)
		}
	}
}

// Files outside the workspace (credentials, home, data) are not visible.
func TestCannotReadOutside(t *testing.T) {
	s := bwrapSandbox(t, sandbox.Limits{})
	credsDir := t.TempDir()
	creds := filepath.Join(credsDir, "codali.creds")
	if err := os.WriteFile(creds, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	probe := sh("cat " + creds + "; ls -a " + credsDir + " " + home + "; cat /etc/shadow; ls /var/run/secrets; echo done")
	if res := run(t, noneSandbox(t), sandbox.Spec{Argv: probe}); !strings.Contains(res.Output, secret) {
		t.Fatalf("the probe does not find the creds even unsandboxed:\n%s", res.Output)
	}
	res := run(t, s, sandbox.Spec{Argv: probe})
	if strings.Contains(res.Output, secret) || !strings.Contains(res.Output, "done") {
		t.Fatalf("outside files visible:\n%s", res.Output)
	}
	// Writes outside the binds fail or land in the sandbox's own tmpfs.
	outside := t.TempDir()
	run(t, s, sandbox.Spec{Argv: sh("echo x > " + filepath.Join(outside, "w") + "; echo x > /usr/pwned")})
	if _, err := os.Stat(filepath.Join(outside, "w")); err == nil {
		t.Fatal("a write outside the workspace reached the host")
	}
	if _, err := os.Stat("/usr/pwned"); err == nil {
		t.Fatal("a write to /usr reached the host")
	}
}

// No network unless granted.
func TestNoNetworkUnlessGranted(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	s := bwrapSandbox(t, sandbox.Limits{MemoryBytes: -1}) // the race detector reserves huge address space
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	copyFile(t, self, filepath.Join(dir, "helper"))
	e := append(env(), helperEnv+"=connect:"+ln.Addr().String())
	res := run(t, s, sandbox.Spec{Dir: dir, Argv: []string{"./helper"}, Env: e})
	if res.ExitCode != 3 || !strings.Contains(res.Output, "dial failed") {
		t.Fatalf("connected without a network grant: %+v", res)
	}
	res = run(t, s, sandbox.Spec{Dir: dir, Argv: []string{"./helper"}, Env: e, Network: true})
	if res.ExitCode != 0 || !strings.Contains(res.Output, "connected") {
		t.Fatalf("granted network does not work: %+v", res)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = in.Close() }()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// running reports whether a process with exactly this argv exists on the
// host.
func running(argv ...string) bool {
	want := strings.Join(argv, "\x00") + "\x00"
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && string(b) == want {
			return true
		}
	}
	return false
}

// waitGone polls until no process has argv, failing after a generous
// deadline.
func waitGone(t *testing.T, argv ...string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for running(argv...) {
		select {
		case <-deadline:
			t.Fatalf("%v still runs after the command returned", argv)
		case <-tick.C:
		}
	}
}

// No child keeps running after the command returns, in either mode.
func TestNoChildLeftBehind(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeBwrap, sandbox.ModeNone} {
		t.Run(string(mode), func(t *testing.T) {
			var s *sandbox.Sandbox
			if mode == sandbox.ModeBwrap {
				s = bwrapSandbox(t, sandbox.Limits{})
			} else {
				s = noneSandbox(t)
			}
			arg := fmt.Sprintf("%d.%d", 4000+os.Getpid()%1000, time.Now().UnixNano()%1000)
			res := run(t, s, sandbox.Spec{Argv: sh("sleep " + arg + " & echo started")})
			if res.ExitCode != 0 || !strings.Contains(res.Output, "started") {
				t.Fatalf("%+v", res)
			}
			waitGone(t, "sleep", arg)
			// On timeout the whole tree dies too.
			arg2 := arg + "1"
			start := time.Now()
			res = run(t, s, sandbox.Spec{Argv: sh("sleep " + arg2 + " & sleep " + arg2), Timeout: 300 * time.Millisecond})
			if !res.TimedOut || res.ExitCode != -1 || time.Since(start) > 30*time.Second {
				t.Fatalf("%+v", res)
			}
			waitGone(t, "sleep", arg2)
		})
	}
}

// TestLimits: every limit holds, whether this process sets it on the
// sandboxed process (the default) or the prlimit program does (where the
// default cannot work), and also without the prlimit program at all.
func TestLimits(t *testing.T) {
	ways := map[string]func(t *testing.T, lim sandbox.Limits) *sandbox.Sandbox{
		"set from here": func(t *testing.T, lim sandbox.Limits) *sandbox.Sandbox {
			s := bwrapSandbox(t, lim)
			if !sandbox.LimitsInside(s) {
				t.Fatal("the limits are not set from here")
			}
			return s
		},
		"no prlimit program": func(t *testing.T, lim sandbox.Limits) *sandbox.Sandbox {
			return checked(t, sandbox.Config{Limits: lim, Prlimit: "/nonexistent/prlimit"}, nil)
		},
		"prlimit program": func(t *testing.T, lim sandbox.Limits) *sandbox.Sandbox {
			s := checked(t, sandbox.Config{Limits: lim}, sandbox.UsePrlimitProgram)
			if sandbox.LimitsInside(s) {
				t.Fatal("the limits are set from here")
			}
			return s
		},
	}
	for way, mk := range ways {
		t.Run(way, func(t *testing.T) { testLimits(t, mk) })
	}
}

// checked is a bwrap sandbox for cfg (after prepare), checked like
// bwrapSandbox.
func checked(t *testing.T, cfg sandbox.Config, prepare func(*sandbox.Sandbox)) *sandbox.Sandbox {
	t.Helper()
	s, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if prepare != nil {
		prepare(s)
	}
	if err := s.Check(context.Background()); err != nil {
		if os.Getenv("CODALI_REQUIRE_SANDBOX") != "" {
			t.Fatal(err)
		}
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
	return s
}

func testLimits(t *testing.T, mk func(t *testing.T, lim sandbox.Limits) *sandbox.Sandbox) {
	t.Run("cpu", func(t *testing.T) {
		s := mk(t, sandbox.Limits{CPUSeconds: 1})
		res := run(t, s, sandbox.Spec{Argv: sh("while :; do :; done")})
		if res.Limit != "cpu" || !strings.Contains(res.Output, "CPU time limit") {
			t.Fatalf("%+v", res)
		}
	})
	t.Run("file size", func(t *testing.T) {
		s := mk(t, sandbox.Limits{FileBytes: 1000})
		res := run(t, s, sandbox.Spec{Argv: sh("head -c 100000 /dev/zero > big")})
		if res.Limit != "file size" || !strings.Contains(res.Output, "file size limit") {
			t.Fatalf("%+v", res)
		}
	})
	t.Run("memory", func(t *testing.T) {
		s := mk(t, sandbox.Limits{MemoryBytes: 64 << 20})
		res := run(t, s, sandbox.Spec{Argv: []string{"awk", `BEGIN { s = "a"; while (1) s = s s }`}})
		if res.ExitCode == 0 || res.Limit != "memory" {
			t.Fatalf("%+v", res)
		}
	})
	t.Run("processes", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("RLIMIT_NPROC does not apply to root")
		}
		s := mk(t, sandbox.Limits{Processes: 1})
		res := run(t, s, sandbox.Spec{Argv: sh("sh -c true && sh -c true")})
		if res.ExitCode == 0 {
			t.Fatalf("%+v", res)
		}
	})
	t.Run("output", func(t *testing.T) {
		s := mk(t, sandbox.Limits{})
		res := run(t, s, sandbox.Spec{Argv: sh("i=0; while [ $i -lt 2000 ]; do echo line$i; i=$((i+1)); done"), OutputLimit: 100})
		if !strings.Contains(res.Output, "elided") || !strings.Contains(res.Output, "line1999") || len(res.Output) > 200 {
			t.Fatalf("tail not kept: %q", res.Output)
		}
	})
}

// Without bubblewrap commands are refused; mode none runs them and says
// it is not isolated.
func TestUnavailableRefuses(t *testing.T) {
	s, err := sandbox.New(sandbox.Config{Bwrap: "/nonexistent/bwrap"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Run(context.Background(), sandbox.Spec{Dir: t.TempDir(), Argv: []string{"true"}, Env: env(), Timeout: time.Second}); !errors.Is(err, sandbox.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
	none, err := sandbox.New(sandbox.Config{Mode: sandbox.ModeNone, Bwrap: "/nonexistent/bwrap"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = none.Close() })
	res := run(t, none, sandbox.Spec{Argv: sh("echo plain")})
	if res.Sandboxed || none.Isolated() || !strings.Contains(res.Output, "plain") {
		t.Fatalf("%+v", res)
	}
	// Where the limits cannot be set from here, a bwrap sandbox without
	// the prlimit program is refused; mode none runs without limits.
	noLimits, _ := sandbox.New(sandbox.Config{Prlimit: "/nonexistent/prlimit"})
	t.Cleanup(func() { _ = noLimits.Close() })
	sandbox.UsePrlimitProgram(noLimits)
	if _, err := noLimits.Run(context.Background(), sandbox.Spec{Dir: t.TempDir(), Argv: []string{"true"}, Env: env(), Timeout: time.Second}); !errors.Is(err, sandbox.ErrUnavailable) {
		t.Fatalf("without prlimit: %v", err)
	}
	noneNoLimits, _ := sandbox.New(sandbox.Config{Mode: sandbox.ModeNone, Prlimit: "/nonexistent/prlimit"})
	if res := run(t, noneNoLimits, sandbox.Spec{Argv: sh("echo plain")}); !strings.Contains(res.Output, "plain") {
		t.Fatalf("%+v", res)
	}
	if _, err := sandbox.New(sandbox.Config{Mode: "docker"}); !errors.Is(err, sandbox.ErrInvalid) {
		t.Fatalf("bad mode: %v", err)
	}
	if _, err := sandbox.New(sandbox.Config{ReadOnly: []string{"rel/path"}}); !errors.Is(err, sandbox.ErrInvalid) {
		t.Fatalf("relative read-only path: %v", err)
	}
}

// TestEtcIsTheAllowedPieces: the sandbox's /etc holds the allowed pieces
// of the host's, with the host's content, read-only, and nothing else.
func TestEtcIsTheAllowedPieces(t *testing.T) {
	s := bwrapSandbox(t, sandbox.Limits{})
	for _, p := range []string{"/etc/hosts", "/etc/passwd", "/etc/ld.so.cache"} {
		want, err := os.ReadFile(p)
		if err != nil {
			continue // not on this host
		}
		res := run(t, s, sandbox.Spec{Argv: []string{"cat", p}, OutputLimit: len(want) + 1024})
		if res.ExitCode != 0 || res.Output != string(want) {
			t.Errorf("%s in the sandbox: exit %d, %d bytes, want the host's %d", p, res.ExitCode, len(res.Output), len(want))
		}
	}
	res := run(t, s, sandbox.Spec{Argv: sh("echo x > /etc/hosts && echo WROTE; touch /etc/new && echo CREATED; echo end")})
	if strings.Contains(res.Output, "WROTE") || strings.Contains(res.Output, "CREATED") || !strings.Contains(res.Output, "end") {
		t.Fatalf("/etc is writable:\n%s", res.Output)
	}
	res = run(t, s, sandbox.Spec{Argv: []string{"ls", "-A", "/etc"}})
	allowed := map[string]bool{}
	for _, p := range []string{"alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "ssl", "ca-certificates", "pki", "resolv.conf", "hosts",
		"nsswitch.conf", "host.conf", "gai.conf", "services", "protocols", "passwd", "group", "localtime", "timezone", "mime.types"} {
		allowed[p] = true
	}
	if res.ExitCode != 0 {
		t.Fatalf("ls /etc: %+v", res)
	}
	for _, name := range strings.Fields(res.Output) {
		if !allowed[name] {
			t.Errorf("/etc/%s is in the sandbox", name)
		}
	}
	// A directory closed to others (the host's private keys) stays out,
	// though its parent is there.
	for _, p := range []string{"/etc/ssl/private", "/etc/pki/tls/private"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
			if res := run(t, s, sandbox.Spec{Argv: sh("test -e " + p + " && echo VISIBLE; echo end")}); strings.Contains(res.Output, "VISIBLE") {
				t.Errorf("%s is in the sandbox", p)
			}
		}
	}
	if fi, err := os.Lstat("/etc/localtime"); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if res := run(t, s, sandbox.Spec{Argv: []string{"test", "-r", "/etc/localtime"}}); res.ExitCode != 0 {
			t.Errorf("/etc/localtime does not resolve in the sandbox: %+v", res)
		}
	}
}

// TestEtcUnderTinyLimits: limits smaller than the files of /etc, or than
// the descriptors copying them would hold, never keep the sandbox from
// starting (bubblewrap copies /etc while the limits may already apply),
// whichever way the limits are set.
func TestEtcUnderTinyLimits(t *testing.T) {
	bwrapSandbox(t, sandbox.Limits{}) // skips where bubblewrap cannot run at all
	for _, lim := range []sandbox.Limits{{FileBytes: 100}, {OpenFiles: 12}, {FileBytes: 1000, OpenFiles: 20}} {
		for _, prlimit := range []bool{false, true} {
			s, err := sandbox.New(sandbox.Config{Limits: lim})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			if prlimit {
				sandbox.UsePrlimitProgram(s)
			}
			if err := s.Check(context.Background()); err != nil {
				t.Fatalf("limits %+v (prlimit program %v): %v", lim, prlimit, err)
			}
			for range 5 {
				res := run(t, s, sandbox.Spec{Argv: sh("cat /etc/hosts >/dev/null && echo ok")})
				if res.ExitCode != 0 || !strings.Contains(res.Output, "ok") {
					t.Fatalf("limits %+v (prlimit program %v): %+v", lim, prlimit, res)
				}
			}
		}
	}
}

// TestRunAfterCloseIsRefused: a closed sandbox has removed its /etc, so a
// command started afterwards is refused, not run without one.
func TestRunAfterCloseIsRefused(t *testing.T) {
	s := bwrapSandbox(t, sandbox.Limits{})
	if res := run(t, s, sandbox.Spec{Argv: []string{"true"}}); res.ExitCode != 0 {
		t.Fatalf("%+v", res)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := s.Run(context.Background(), sandbox.Spec{Dir: t.TempDir(), Argv: []string{"true"}, Env: env(), Timeout: time.Minute})
	if !errors.Is(err, sandbox.ErrUnavailable) {
		t.Fatalf("run after close: %v", err)
	}
}

// The kernel's settings are read-only in the sandbox: a service running
// as root would otherwise let the command (its uid 0 is the host's) set
// kernel.core_pattern, a program the kernel runs as root outside.
func TestCannotWriteKernelSettings(t *testing.T) {
	s := bwrapSandbox(t, sandbox.Limits{})
	probe := sh(`for f in /proc/sys/kernel/core_pattern /proc/sys/kernel/modprobe /proc/sys/kernel/panic /proc/sys/vm/drop_caches; do
  [ -e "$f" ] || continue; echo "exists $f"; [ -w "$f" ] && echo "WRITABLE $f"; done; cat /proc/sys/kernel/ostype`)
	res := run(t, s, sandbox.Spec{Argv: probe})
	if strings.Contains(res.Output, "WRITABLE") || !strings.Contains(res.Output, "exists /proc/sys/kernel/panic") || !strings.Contains(res.Output, "Linux") {
		t.Fatalf("kernel settings writable, or not readable, in the sandbox:\n%s", res.Output)
	}
}

// TestMemoryIsBounded: what a command writes outside its workspace is
// memory; each writable in-memory directory holds at most TmpBytes, and
// the rest of the sandbox's own file system (its root, /dev) is
// read-only, so a command cannot fill the host's memory through files.
func TestMemoryIsBounded(t *testing.T) {
	if got := bwrapSandbox(t, sandbox.Limits{}).Limits().TmpBytes; got != sandbox.DefaultTmpBytes {
		t.Fatalf("default in-memory bound %d, want %d", got, sandbox.DefaultTmpBytes)
	}
	const size = 1 << 20
	s := bwrapSandbox(t, sandbox.Limits{TmpBytes: size})
	probe := sh(`for d in /tmp /var/tmp /run /dev/shm / /dev /var; do
  head -c 3000000 /dev/zero > "$d/fill" 2>/dev/null; echo "$d $(cat "$d/fill" 2>/dev/null | wc -c)"; done
echo ok > /dev/null && echo devices-work`)
	res := run(t, s, sandbox.Spec{Argv: probe})
	if !strings.Contains(res.Output, "devices-work") {
		t.Fatalf("probe did not finish:\n%s", res.Output)
	}
	for _, line := range strings.Split(res.Output, "\n") {
		var dir string
		var n int64
		if _, err := fmt.Sscanf(line, "%s %d", &dir, &n); err != nil {
			continue
		}
		if n > size {
			t.Errorf("%s holds %d bytes (bound %d)", dir, n, size)
		}
		if (dir == "/" || dir == "/dev" || dir == "/var") && n != 0 {
			t.Errorf("%s is writable: %d bytes written", dir, n)
		}
	}
}

// TestInheritedDescriptorsStayOut: a descriptor this process holds
// without close-on-exec (inherited from whatever started the service)
// does not reach the command.
func TestInheritedDescriptorsStayOut(t *testing.T) {
	p := filepath.Join(t.TempDir(), "inherited")
	if err := os.WriteFile(p, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	opened, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Close(opened) }()
	// A copy without close-on-exec, above the descriptors bwrap is given.
	fd, err := unix.FcntlInt(uintptr(opened), unix.F_DUPFD, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Close(fd) }()
	s := bwrapSandbox(t, sandbox.Limits{})
	res := run(t, s, sandbox.Spec{Argv: sh(fmt.Sprintf("cat /proc/self/fd/%d; ls /proc/self/fd; echo done", fd))})
	if strings.Contains(res.Output, secret) || !strings.Contains(res.Output, "done") {
		t.Fatalf("descriptor %d reached the command:\n%s", fd, res.Output)
	}
}

// TestOldBubblewrapWithoutSize: a bubblewrap that does not know --size
// (an old one) still runs commands, its in-memory directories unbounded
// and said to be; any other failure still refuses them.
func TestOldBubblewrapWithoutSize(t *testing.T) {
	bwrapSandbox(t, sandbox.Limits{}) // skips where bubblewrap cannot run
	s := standInBwrap(t, "--size", "bwrap: Unknown option $a")
	res := run(t, s, sandbox.Spec{Argv: sh("echo ran")})
	if !strings.Contains(res.Output, "ran") || !res.Sandboxed || s.Limits().TmpBytes != -1 {
		t.Fatalf("%+v, tmpBytes %d", res, s.Limits().TmpBytes)
	}
	broken := filepath.Join(t.TempDir(), "bwrap")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := sandbox.New(sandbox.Config{Bwrap: broken})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Check(context.Background()); !errors.Is(err, sandbox.ErrUnavailable) || s.Limits().TmpBytes != sandbox.DefaultTmpBytes {
		t.Fatalf("broken bubblewrap: %v, tmpBytes %d", err, s.Limits().TmpBytes)
	}
}

// TestNoNestedUserNamespace: a command cannot make a user namespace of
// its own. In one it could mount a tmpfs of any size (as many as it
// likes: tmpBytes would bound nothing) and reach the kernel's code for
// unprivileged namespaces, a frequent way to escalate.
func TestNoNestedUserNamespace(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare (util-linux) here")
	}
	for _, prlimitProgram := range []bool{false, true} {
		s, err := sandbox.New(sandbox.Config{Limits: sandbox.Limits{TmpBytes: 1 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		if prlimitProgram {
			sandbox.UsePrlimitProgram(s)
		}
		if err := s.Check(context.Background()); err != nil {
			t.Skipf("bubblewrap cannot run here: %v", err)
		}
		res := run(t, s, sandbox.Spec{Argv: sh(`unshare -U -r -m sh -c 'mount -t tmpfs big /tmp && echo NESTED-TMPFS'; unshare -U true && echo NESTED-USERNS; echo done`)})
		if strings.Contains(res.Output, "NESTED") || !strings.Contains(res.Output, "done") {
			t.Fatalf("prlimit program %v: a command made a user namespace of its own:\n%s", prlimitProgram, res.Output)
		}
	}
}

// TestBubblewrapWithoutDisableUserns: a bubblewrap older than 0.8 (no
// --disable-userns, nor --size before 0.5), or one that cannot set the
// namespace limit here (/proc/sys read-only, as in some containers),
// still runs commands, and says what it lacks.
func TestBubblewrapWithoutDisableUserns(t *testing.T) {
	bwrapSandbox(t, sandbox.Limits{}) // skips where bubblewrap cannot run
	for _, tc := range []struct {
		refused, message string
		lacks            []string
	}{
		{"--disable-userns", "bwrap: Unknown option $a", []string{sandbox.LackUserns}},
		{"--disable-userns|--size", "bwrap: Unknown option $a", []string{sandbox.LackTmpSize, sandbox.LackUserns}},
		{"--disable-userns", "bwrap: cannot open /proc/sys/user/max_user_namespaces: Read-only file system", []string{sandbox.LackUserns}},
	} {
		s := standInBwrap(t, tc.refused, tc.message)
		res := run(t, s, sandbox.Spec{Argv: sh("echo ran")})
		wantTmp := int64(sandbox.DefaultTmpBytes)
		if strings.Contains(tc.refused, "--size") {
			wantTmp = -1
		}
		if !strings.Contains(res.Output, "ran") || !res.Sandboxed || s.Limits().TmpBytes != wantTmp || !sandbox.LimitsInside(s) || fmt.Sprint(s.Lacks()) != fmt.Sprint(tc.lacks) {
			t.Fatalf("%s refused: %+v, tmpBytes %d, limits inside %v, lacks %q", tc.refused, res, s.Limits().TmpBytes, sandbox.LimitsInside(s), s.Lacks())
		}
	}
	// The one here, when it is new enough: nothing; and in-memory
	// directories unbounded by configuration are not a lack.
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	if help, _ := exec.Command(bwrap, "--help").CombinedOutput(); strings.Contains(string(help), "--disable-userns") {
		for _, tmp := range []int64{0, -1} {
			if lacks := bwrapSandbox(t, sandbox.Limits{TmpBytes: tmp}).Lacks(); len(lacks) != 0 {
				t.Errorf("tmpBytes %d: lacks %q", tmp, lacks)
			}
		}
	}
}

// TestReadOnlyPathUnderDev: a read-only path configured under /dev (a
// host directory such as /dev/net) is still bound: /dev is made
// read-only only after every mount point on it is made.
func TestReadOnlyPathUnderDev(t *testing.T) {
	var dir string
	entries, _ := os.ReadDir("/dev")
	for _, e := range entries {
		if e.IsDir() && e.Name() != "pts" && e.Name() != "shm" {
			dir = filepath.Join("/dev", e.Name())
			break
		}
	}
	if dir == "" {
		t.Skip("no directory under the host's /dev")
	}
	s := bwrapSandbox(t, sandbox.Limits{})
	res := run(t, s, sandbox.Spec{ReadOnly: []string{dir}, Argv: sh("test -d " + dir + " && echo bound; touch /dev/x 2>/dev/null || echo dev-read-only")})
	if !strings.Contains(res.Output, "bound") || !strings.Contains(res.Output, "dev-read-only") {
		t.Fatalf("%s: %+v", dir, res)
	}
}

// TestFullMemoryDirectoryIsNamed: a command that fails on a full /tmp is
// told the bound it hit (tmpBytes), as for the other limits.
func TestFullMemoryDirectoryIsNamed(t *testing.T) {
	s := bwrapSandbox(t, sandbox.Limits{TmpBytes: 1 << 20})
	res := run(t, s, sandbox.Spec{Argv: sh("head -c 3000000 /dev/zero > /tmp/fill")})
	if res.ExitCode == 0 || res.Limit != "in-memory directory" || !strings.Contains(res.Output, "1048576 bytes each (tmpBytes)") {
		t.Fatalf("%+v", res)
	}
	// Unbounded (by configuration), there is no bound to name.
	s = bwrapSandbox(t, sandbox.Limits{TmpBytes: -1})
	if res := run(t, s, sandbox.Spec{Argv: sh("echo 'No space left on device' >&2; exit 1")}); res.Limit != "" {
		t.Fatalf("%+v", res)
	}
}

// standInBwrap is a sandbox whose bubblewrap is a stand-in for an older
// or restricted one: it fails with message (the shell's $a is the
// option) when given an option matching the case pattern refused, and
// runs the real one otherwise.
func standInBwrap(t *testing.T, refused, message string) *sandbox.Sandbox {
	t.Helper()
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bwrap")
	script := "#!/bin/sh\nfor a; do case \"$a\" in " + refused + ") echo \"" + message + "\" >&2; exit 1;; esac; done\nexec " + bwrap + " \"$@\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := sandbox.New(sandbox.Config{Bwrap: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
