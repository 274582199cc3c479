package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// fakeEtc makes a host /etc in a temporary directory: allowed pieces
// others may read, pieces closed to them, a piece not allowed, links and a
// fifo.
func fakeEtc(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	write := func(rel, content string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	write("hosts", "127.0.0.1 localhost\n", 0o644)
	write("group", "root:x:0:\n", 0o600) // closed to others
	write("shadow", "root:SECRET:1:0:::::\n", 0o644)
	write("ssl/certs/ca.pem", "CERT\n", 0o644)
	write("ssl/openssl.cnf", "conf\n", 0o644)
	write("ssl/private/host.key", "PRIVATE KEY\n", 0o640)
	if err := os.Chmod(filepath.Join(root, "ssl/private"), 0o710); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../private/host.key", filepath.Join(root, "ssl/certs/key-link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "ssl/certs/fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A top-level link outside /usr is followed.
	write("run/resolv.conf", "nameserver 10.0.0.1\n", 0o644)
	if err := os.Symlink("run/resolv.conf", filepath.Join(root, "resolv.conf")); err != nil {
		t.Fatal(err)
	}
	return root
}

// clock is a settable time.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newViews(t *testing.T, root string) (*etcViews, *clock) {
	t.Helper()
	c := &clock{t: time.Unix(1_000_000, 0)}
	v := &etcViews{root: root, temp: t.TempDir(), now: c.now}
	t.Cleanup(v.close)
	return v, c
}

func readIn(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return string(b)
}

// TestEtcViewHoldsOnlyWhatOthersMayRead: the view has the allowed pieces
// others may read, links as they are, and nothing closed to others (a
// private key directory), not allowed (shadow) or special (a fifo).
func TestEtcViewHoldsOnlyWhatOthersMayRead(t *testing.T) {
	v, _ := newViews(t, fakeEtc(t))
	dir, release, err := v.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if got := readIn(t, dir, "hosts"); got != "127.0.0.1 localhost\n" {
		t.Errorf("hosts: %q", got)
	}
	if got := readIn(t, dir, "ssl/certs/ca.pem"); got != "CERT\n" {
		t.Errorf("ca.pem: %q", got)
	}
	if got := readIn(t, dir, "resolv.conf"); got != "nameserver 10.0.0.1\n" {
		t.Errorf("resolv.conf (a link followed): %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "resolv.conf")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("resolv.conf is not a copy: %v %v", fi, err)
	}
	if target, err := os.Readlink(filepath.Join(dir, "ssl/certs/key-link")); err != nil || target != "../private/host.key" {
		t.Errorf("a link inside is kept as it is: %q %v", target, err)
	}
	for _, rel := range []string{"group", "shadow", "ssl/private", "ssl/private/host.key", "ssl/certs/fifo", "run"} {
		if _, err := os.Lstat(filepath.Join(dir, rel)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is in the view: %v", rel, err)
		}
	}
	if _, err := os.ReadFile(filepath.Join(dir, "ssl/certs/key-link")); err == nil {
		t.Error("the link to the private key resolves in the view")
	}
}

// TestEtcViewFollowsTheHost: a change on the host makes a new view for the
// commands started once etcRecheck has passed; the old one stays while a
// command uses it and goes when the last one ends.
func TestEtcViewFollowsTheHost(t *testing.T) {
	root := fakeEtc(t)
	v, c := newViews(t, root)
	first, releaseFirst, err := v.acquire()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "hosts"), []byte("10.1.1.1 changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, releaseAgain, err := v.acquire()
	if err != nil {
		t.Fatal(err)
	}
	releaseAgain()
	if again != first {
		t.Fatalf("looked at the host again before etcRecheck: %s, %s", first, again)
	}
	c.t = c.t.Add(etcRecheck)
	second, releaseSecond, err := v.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer releaseSecond()
	if second == first {
		t.Fatal("a changed host /etc kept the old view")
	}
	if got := readIn(t, second, "hosts"); got != "10.1.1.1 changed\n" {
		t.Errorf("new view: hosts %q", got)
	}
	if got := readIn(t, first, "hosts"); got != "127.0.0.1 localhost\n" {
		t.Errorf("the view in use changed: hosts %q", got)
	}
	releaseFirst()
	releaseFirst() // a second call is harmless
	if _, err := os.Stat(first); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old view outlived its last command: %v", err)
	}
	// Unchanged after etcRecheck: the same view.
	c.t = c.t.Add(etcRecheck)
	third, releaseThird, err := v.acquire()
	if err != nil {
		t.Fatal(err)
	}
	releaseThird()
	if third != second {
		t.Errorf("an unchanged host made a new view: %s, %s", second, third)
	}
	if _, err := os.Stat(second); err != nil {
		t.Errorf("the current view was removed: %v", err)
	}
}

// TestEtcViewBounds: a host /etc beyond the bounds is an error naming the
// piece, and leaves no partial view behind.
func TestEtcViewBounds(t *testing.T) {
	root := fakeEtc(t)
	for name, v := range map[string]*etcViews{
		"entries": {root: root, temp: t.TempDir(), now: time.Now, maxEntries: 3},
		"bytes":   {root: root, temp: t.TempDir(), now: time.Now, maxBytes: 10},
	} {
		_, _, err := v.acquire()
		if err == nil || !strings.Contains(err.Error(), "more than") {
			t.Errorf("%s: %v", name, err)
		}
		entries, _ := os.ReadDir(v.base)
		if len(entries) != 1 || entries[0].Name() != etcLockName {
			t.Errorf("%s: a partial view stays: %v", name, entries)
		}
		v.close()
	}
}

// TestEtcViewClose: close removes the views; one in use goes when its
// command ends; nothing is acquired afterwards.
func TestEtcViewClose(t *testing.T) {
	v, _ := newViews(t, fakeEtc(t))
	dir, release, err := v.acquire()
	if err != nil {
		t.Fatal(err)
	}
	base := v.base
	v.close()
	if got := readIn(t, dir, "hosts"); got == "" {
		t.Fatal("the view in use was emptied by close")
	}
	if _, _, err := v.acquire(); !errors.Is(err, errViewsClosed) {
		t.Fatalf("acquire after close: %v", err)
	}
	release()
	if _, err := os.Stat(base); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("close left %s: %v", base, err)
	}
}

// TestEtcBasesLeftByEndedProcessesGo: making a view removes the private
// directories whose process ended (their lock is free), and nothing else:
// not one whose process lives, one without a lock, nor other names.
func TestEtcBasesLeftByEndedProcessesGo(t *testing.T) {
	temp := t.TempDir()
	ended, endedLock, err := newBase(temp)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ended, "hosts"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = endedLock.Close() // its process ended
	living, livingLock, err := newBase(temp)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = livingLock.Close() }()
	unlocked := filepath.Join(temp, etcBasePrefix+"nolock")
	other := filepath.Join(temp, "other-dir")
	for _, d := range []string{unlocked, other} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	v := &etcViews{root: fakeEtc(t), temp: temp, now: time.Now}
	defer v.close()
	if _, release, err := v.acquire(); err != nil {
		t.Fatal(err)
	} else {
		release()
	}
	if _, err := os.Stat(ended); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the ended process's directory stays: %v", err)
	}
	for _, d := range []string{living, unlocked, other, v.base} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
}

// TestEtcBasesLeftHalfMadeGo: a process killed between making its
// private directory and naming its lock leaves the directory without a
// lock (empty, or with the lock file not yet named); once etcAbandoned
// has passed it is swept. One as recent is being made and stays, and so
// does one holding anything else.
func TestEtcBasesLeftHalfMadeGo(t *testing.T) {
	temp := t.TempDir()
	old := time.Now().Add(-2 * etcAbandoned)
	mk := func(name string, files ...string) string {
		t.Helper()
		d := filepath.Join(temp, etcBasePrefix+name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(d, f), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	empty, unnamed := mk("empty"), mk("unnamed", etcLockName+".new")
	recent, other := mk("recent", etcLockName+".new"), mk("other", "hosts")
	for _, d := range []string{empty, unnamed, other} {
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
	sweepBases(temp)
	for _, d := range []string{empty, unnamed} {
		if _, err := os.Lstat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s, left half made, stays: %v", d, err)
		}
	}
	for _, d := range []string{recent, other} {
		if _, err := os.Lstat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
}

// TestEtcViewCloseKeepsOldViewsInUse: close while a command still uses a
// view the host has since replaced leaves that view in place until the
// command ends, then removes everything.
func TestEtcViewCloseKeepsOldViewsInUse(t *testing.T) {
	root := fakeEtc(t)
	v, c := newViews(t, root)
	old, releaseOld, err := v.acquire()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "hosts"), []byte("10.1.1.1 changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(etcRecheck)
	current, releaseCurrent, err := v.acquire()
	if err != nil {
		t.Fatal(err)
	}
	if current == old {
		t.Fatal("a changed host /etc kept the old view")
	}
	releaseCurrent()
	base := v.base
	v.close()
	if got := readIn(t, old, "hosts"); got != "127.0.0.1 localhost\n" {
		t.Fatalf("the old view in use was emptied by close: hosts %q", got)
	}
	releaseOld()
	if _, err := os.Stat(base); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("close left %s: %v", base, err)
	}
}

// TestEtcViewSkipsWhatGoesWhileCopied: a directory or link of the host's
// /etc removed or replaced by a file between its listing and its copy (a
// package update replacing certificates) is left out, as a file is,
// rather than failing the view and with it the command.
func TestEtcViewSkipsWhatGoesWhileCopied(t *testing.T) {
	mkdir := func(p string) error { return os.Mkdir(p, 0o755) }
	link := func(p string) error { return os.Symlink("target", p) }
	remove := func(p string) error { return os.Remove(p) }
	toFile := func(p string) error {
		if err := os.Remove(p); err != nil {
			return err
		}
		return os.WriteFile(p, []byte("x"), 0o644)
	}
	for name, c := range map[string]struct{ make, change func(string) error }{
		"dir removed":     {mkdir, remove},
		"dir now a file":  {mkdir, toFile},
		"link removed":    {link, remove},
		"link now a file": {link, toFile},
	} {
		src := filepath.Join(t.TempDir(), "piece")
		if err := c.make(src); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.change(src); err != nil {
			t.Fatal(err)
		}
		cp := &copier{maxEntries: etcMaxEntries, maxBytes: etcMaxBytes}
		dst := filepath.Join(t.TempDir(), "piece")
		if err := cp.copy(src, dst, fi, 1); err != nil {
			t.Errorf("%s while copied: %v", name, err)
		}
		if _, err := os.Lstat(dst); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s while copied: in the view: %v", name, err)
		}
	}
}

// TestEtcViewConcurrentUse: commands starting and ending at once while the
// host's /etc changes each see a complete view that stays until they end;
// once all have ended and the views are closed nothing is left.
func TestEtcViewConcurrentUse(t *testing.T) {
	root := fakeEtc(t)
	var ticks atomic.Int64
	v := &etcViews{root: root, temp: t.TempDir(), now: func() time.Time {
		return time.Unix(1_000_000, 0).Add(time.Duration(ticks.Load()) * etcRecheck)
	}}
	stop := make(chan struct{})
	changed := make(chan error, 1)
	go func() {
		var err error
		for i := 0; err == nil; i++ {
			select {
			case <-stop:
				changed <- nil
				return
			default:
			}
			err = os.WriteFile(filepath.Join(root, "hosts"), []byte(fmt.Sprintf("10.0.0.%d h\n", i%250)), 0o644)
			ticks.Add(1)
		}
		changed <- err
	}()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 40 {
				dir, release, err := v.acquire()
				if err != nil {
					errs <- err
					return
				}
				b, err := os.ReadFile(filepath.Join(dir, "ssl/certs/ca.pem"))
				if err == nil && string(b) != "CERT\n" {
					err = fmt.Errorf("ca.pem: %q", b)
				}
				if err == nil {
					_, err = os.Stat(filepath.Join(dir, "resolv.conf"))
				}
				release()
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	if err := <-changed; err != nil {
		t.Fatal(err)
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	base := v.base
	v.close()
	if _, err := os.Stat(base); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("close left %s: %v", base, err)
	}
}

// TestCheckDoesNotKeepAnEtcFailure: a view that cannot be made when the
// sandbox is first checked (here a host /etc beyond the bounds; a full
// /dev/shm is another) refuses the commands while it lasts, but is not
// remembered as bubblewrap being unable to run: once a view can be made,
// commands run.
func TestCheckDoesNotKeepAnEtcFailure(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	s.etc = &etcViews{root: "/etc", temp: t.TempDir(), now: time.Now, maxEntries: 3}
	if err := s.Check(context.Background()); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "more than 3 entries") {
		t.Fatalf("check with /etc beyond the bounds: %v", err)
	}
	s.etc.mu.Lock()
	s.etc.maxEntries = 0
	s.etc.mu.Unlock()
	if err := s.Check(context.Background()); err != nil {
		if os.Getenv("CODALI_REQUIRE_SANDBOX") == "" && !strings.Contains(err.Error(), "more than") {
			t.Skipf("bubblewrap cannot run here: %v", err)
		}
		t.Fatalf("check once /etc can be copied: %v", err)
	}
}

// TestEtcSweepLeavesPlantedLinks: a link named like a private directory,
// to a directory that looks left behind, and a directory whose lock file
// is a link, are left alone by the sweep, as is what they lead to.
func TestEtcSweepLeavesPlantedLinks(t *testing.T) {
	temp, victims := t.TempDir(), t.TempDir()
	victim, victimLock, err := newBase(victims)
	if err != nil {
		t.Fatal(err)
	}
	_ = victimLock.Close() // lockable: it would be swept where it is
	if err := os.Symlink(victim, filepath.Join(temp, etcBasePrefix+"link")); err != nil {
		t.Fatal(err)
	}
	linkedLock := filepath.Join(temp, etcBasePrefix+"linkedlock")
	if err := os.Mkdir(linkedLock, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(victim, etcLockName), filepath.Join(linkedLock, etcLockName)); err != nil {
		t.Fatal(err)
	}
	sweepBases(temp)
	for _, p := range []string{victim, filepath.Join(temp, etcBasePrefix+"link"), linkedLock} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}

// TestEtcViewKeptWhenACopyFails: when the host's /etc changed but no copy
// of it can be made (here: over the bounds), commands keep the view they
// had rather than being refused, and the copy is tried again after
// etcRecheck.
func TestEtcViewKeptWhenACopyFails(t *testing.T) {
	root := fakeEtc(t)
	v, c := newViews(t, root)
	first, release, err := v.acquire()
	if err != nil {
		t.Fatal(err)
	}
	release()
	if err := os.WriteFile(filepath.Join(root, "hosts"), []byte("10.1.1.1 changed and much longer than the bound\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v.maxBytes = 10
	c.t = c.t.Add(etcRecheck)
	kept, release, err := v.acquire()
	if err != nil {
		t.Fatalf("a failed copy refused the command: %v", err)
	}
	release()
	if kept != first || readIn(t, kept, "hosts") != "127.0.0.1 localhost\n" {
		t.Fatalf("not the earlier view: %s", kept)
	}
	v.maxBytes = 0
	c.t = c.t.Add(etcRecheck)
	fresh, release, err := v.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if fresh == first || readIn(t, fresh, "hosts") != "10.1.1.1 changed and much longer than the bound\n" {
		t.Fatalf("the copy was not tried again: %s", fresh)
	}
}

// TestEtcViewIgnoresClosedDirectories: a change inside a directory the
// view leaves out (a rotated private key) makes no new view.
func TestEtcViewIgnoresClosedDirectories(t *testing.T) {
	root := fakeEtc(t)
	v, c := newViews(t, root)
	first, release, err := v.acquire()
	if err != nil {
		t.Fatal(err)
	}
	release()
	key := filepath.Join(root, "ssl/private/host.key")
	if err := os.WriteFile(key, []byte("ANOTHER PRIVATE KEY, LONGER\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(etcRecheck)
	again, release, err := v.acquire()
	if err != nil {
		t.Fatal(err)
	}
	release()
	if again != first {
		t.Fatalf("a change the view leaves out made a new view: %s, %s", first, again)
	}
}
