package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sandbox runs commands according to its Config. It is safe for
// concurrent use.
type Sandbox struct {
	cfg    Config
	limits Limits

	mu       sync.Mutex
	checked  bool
	checkErr error
	// havePrlimit is set by Check (under mu, before any run).
	havePrlimit bool
	// limitInside, set by Check, means bubblewrap sandboxes get their
	// limits from this process (prlimit(2) on the sandboxed process while
	// it waits to start) rather than from a prlimit process around bwrap.
	limitInside bool
	// noLimitInside turns that way off (tests of the prlimit way).
	noLimitInside bool
	// nestedUserns, set by Check, means this bubblewrap cannot keep a
	// command from making user namespaces of its own (it is older than
	// 0.8, without --disable-userns, or cannot set the limit here).
	nestedUserns bool
	// unsized, set by Check, means this bubblewrap cannot size a tmpfs
	// (older than 0.5, without --size).
	unsized bool
	// etc makes the sandboxes' /etc.
	etc *etcViews
}

// New returns a Sandbox for cfg. It does not probe the host: Check (or
// the first Run) does.
func New(cfg Config) (*Sandbox, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Mode == "" {
		cfg.Mode = ModeBwrap
	}
	if cfg.Bwrap == "" {
		cfg.Bwrap = "bwrap"
	}
	if cfg.Prlimit == "" {
		cfg.Prlimit = "prlimit"
	}
	return &Sandbox{cfg: cfg, limits: cfg.Limits.withDefaults(), etc: &etcViews{root: "/etc", now: time.Now}}, nil
}

// Close removes the files the sandbox keeps on the host (the copy of
// /etc its sandboxes see; one still in use goes when its command ends).
// Commands started after Close fail with ErrUnavailable.
func (s *Sandbox) Close() error {
	s.etc.close()
	return nil
}

// Mode is the sandbox's mode.
func (s *Sandbox) Mode() Mode { return s.cfg.Mode }

// Isolated reports whether commands run isolated (mode bwrap).
func (s *Sandbox) Isolated() bool { return s.cfg.Mode == ModeBwrap }

// Limits are the limits in force, defaults applied (after Check: a
// bubblewrap too old to size a tmpfs leaves TmpBytes unbounded, -1).
func (s *Sandbox) Limits() Limits {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limits
}

// What a bubblewrap too old (or a host) may keep a sandbox from having;
// see Lacks.
const (
	// LackTmpSize: its in-memory directories are unbounded (bubblewrap
	// before 0.5 has no --size).
	LackTmpSize = "bounded in-memory directories (bubblewrap 0.5 or later)"
	// LackUserns: a command may make user namespaces of its own
	// (bubblewrap before 0.8 has no --disable-userns; or it cannot set the
	// limit, its /proc/sys read-only).
	LackUserns = "no user namespaces of the command's own (bubblewrap 0.8 or later, and a /proc/sys it can write)"
)

// Lacks lists, after Check, the protections the sandbox runs commands
// without because this bubblewrap cannot give them (LackTmpSize,
// LackUserns); nil when it lacks none.
func (s *Sandbox) Lacks() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	if s.unsized {
		out = append(out, LackTmpSize)
	}
	if s.nestedUserns {
		out = append(out, LackUserns)
	}
	return out
}

// Check reports whether commands can run: for mode bwrap it starts a
// trivial command in a sandbox once and remembers the outcome. An error
// wraps ErrUnavailable and says why.
func (s *Sandbox) Check(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.checked {
		return s.checkErr
	}
	s.checkErr = s.probe(ctx)
	// A view of /etc that could not be made (a full /dev/shm, the host's
	// /etc changing) says nothing of bubblewrap: the next command looks
	// again.
	var etcErr *etcViewError
	s.checked = !errors.As(s.checkErr, &etcErr)
	return s.checkErr
}

func (s *Sandbox) probe(ctx context.Context) error {
	_, err := exec.LookPath(s.cfg.Prlimit)
	s.havePrlimit = err == nil
	if s.cfg.Mode == ModeNone {
		return nil // limits too are best effort without a sandbox
	}
	if _, err := exec.LookPath(s.cfg.Bwrap); err != nil {
		return fmt.Errorf("%w: bubblewrap (bwrap) not found: %w; install the bubblewrap package, or set sandbox \"none\" to run commands without isolation", ErrUnavailable, err)
	}
	// Limits set from here first; the prlimit program around bwrap when
	// that cannot work here (for instance a setuid bwrap, whose sandboxed
	// process this one may not change).
	var insideErr error
	if !s.noLimitInside {
		s.limitInside = true
		if insideErr = s.trySized(ctx); insideErr == nil {
			return nil
		}
		s.limitInside = false
	}
	if !s.havePrlimit {
		return errors.Join(insideErr, fmt.Errorf("%w: prlimit (util-linux) not found: %w", ErrUnavailable, err))
	}
	return s.trySized(ctx)
}

// trySized is tryTrivial, and again without what this bubblewrap does
// not know when it is an old one: without sizing the in-memory
// directories (no --size, before 0.5), they are then unbounded
// (Limits().TmpBytes is -1), as they were before there was a bound; and
// without denying the command user namespaces of its own (no
// --disable-userns, before 0.8). Either is better than every command
// refused.
func (s *Sandbox) trySized(ctx context.Context) error {
	for {
		err := s.tryTrivial(ctx)
		switch {
		case err == nil:
			return nil
		case s.limits.TmpBytes > 0 && unknownOption(err, "--size"):
			s.limits.TmpBytes, s.unsized = -1, true
		case !s.nestedUserns && (unknownOption(err, "--disable-userns") || strings.Contains(err.Error(), "max_user_namespaces")):
			// Also where it cannot set the limit (a /proc/sys read-only
			// to it, as in some containers).
			s.nestedUserns = true
		default:
			return err
		}
	}
}

// unknownOption reports whether err is bubblewrap refusing option.
func unknownOption(err error, option string) bool {
	return strings.Contains(err.Error(), "Unknown option "+option)
}

// tryTrivial runs `true` in a sandbox; an error wraps ErrUnavailable and
// says why it did not work.
func (s *Sandbox) tryTrivial(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "codali-sandbox-probe-")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	res, err := s.run(ctx, Spec{Dir: dir, Argv: []string{"true"}, Env: []string{"PATH=/usr/bin:/bin"}, Timeout: 30 * time.Second, OutputLimit: 4096})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("%w: bubblewrap cannot create its namespaces here (are unprivileged user namespaces allowed?): exit %d: %s; set sandbox \"none\" to run commands without isolation",
			ErrUnavailable, res.ExitCode, strings.TrimSpace(res.Output))
	}
	return nil
}

// bwrapArgs is the bubblewrap command line for spec, up to and including
// the "--" before the command; etc is the directory bound as its /etc
// (see etcViews).
func (s *Sandbox) bwrapArgs(spec Spec, etc string) []string {
	a := []string{s.cfg.Bwrap,
		"--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--new-session", "--cap-drop", "ALL", "--hostname", "sandbox",
	}
	// No user namespace of the command's own: in one it could mount file
	// systems (a tmpfs of any size, beyond tmpBytes) and reach the
	// kernel's code for unprivileged namespaces, a frequent way to
	// escalate.
	if !s.nestedUserns {
		a = append(a, "--disable-userns")
	}
	if !spec.Network {
		a = append(a, "--unshare-net")
	}
	// The system's programs and libraries, read-only; merged-/usr links
	// are recreated as links.
	a = append(a, "--ro-bind", "/usr", "/usr")
	for _, p := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(p); err == nil {
				a = append(a, "--symlink", target, p)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", p, p)
		}
	}
	a = append(a, "--ro-bind", etc, "/etc")
	a = append(a, "--proc", "/proc")
	a = append(a, memoryDirArgs(s.limits.TmpBytes)...)
	// The kernel's settings read-only: bubblewrap covers /proc/sys only
	// when it is writable to the caller, which a directory never is; when
	// the service runs as root, the sandboxed process is root to them too
	// (capabilities do not matter there), and could set
	// kernel.core_pattern or kernel.modprobe, a program the kernel runs
	// as root outside. Network settings still read as the sandbox's own.
	a = append(a, "--ro-bind", "/proc/sys", "/proc/sys")
	for _, p := range append(append([]string(nil), s.cfg.ReadOnly...), spec.ReadOnly...) {
		a = append(a, "--ro-bind-try", p, p)
	}
	for _, p := range append([]string{spec.Dir}, spec.Writable...) {
		a = append(a, "--bind", p, p)
	}
	// The sandbox's root, an in-memory file system without a size, and
	// its /dev are read-only once every mount point on them is made (a
	// read-only path may be under /dev).
	return append(a, "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", spec.Dir, "--")
}

// memoryDirArgs make the sandbox's /dev and its writable in-memory
// directories. Each tmpfs holds at most size bytes (no bound when size
// is not positive): without one a tmpfs may take half the host's memory,
// and a command could fill several. /dev (bubblewrap's own tmpfs, which
// takes no size) gets a /dev/shm of its own; bwrapArgs makes the rest of
// it read-only but for its devices.
func memoryDirArgs(size int64) []string {
	a := []string{"--dev", "/dev"}
	for _, p := range []string{"/dev/shm", "/tmp", "/var/tmp", "/run"} {
		if size > 0 {
			a = append(a, "--size", strconv.FormatInt(size, 10))
		}
		a = append(a, "--tmpfs", p)
	}
	return a
}

// lookPath finds argv0 as the sandboxed command would: a path with a
// slash relative to dir, a bare name on the PATH of env.
func lookPath(argv0, dir string, env []string) error {
	if strings.Contains(argv0, "/") {
		p := argv0
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if fi, err := os.Stat(p); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Errorf("%w: %s: not an executable file", ErrCommand, argv0)
		}
		return nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			continue
		}
		if fi, err := os.Stat(filepath.Join(d, argv0)); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return nil
		}
	}
	return fmt.Errorf("%w: %s: executable file not found in PATH", ErrCommand, argv0)
}
