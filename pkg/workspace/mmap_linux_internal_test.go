//go:build linux

package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/codali-dev/codali/pkg/events"
)

// tmpfsDir is a new directory on tmpfs (removed with the test), or ""
// when the machine has none at /dev/shm.
func tmpfsDir(t *testing.T) string {
	t.Helper()
	var st unix.Statfs_t
	if unix.Statfs("/dev/shm", &st) != nil || st.Type != unix.TMPFS_MAGIC {
		return ""
	}
	dir, err := os.MkdirTemp("/dev/shm", "codali-test-")
	if err != nil {
		return ""
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// diskAndTmpfs are new directories for a test's workspace roots: "disk"
// (the test's temporary directory) and, when the machine has it,
// "tmpfs".
func diskAndTmpfs(t *testing.T) map[string]string {
	t.Helper()
	roots := map[string]string{"disk": t.TempDir()}
	if shm := tmpfsDir(t); shm != "" {
		roots["tmpfs"] = shm
	}
	return roots
}

// onDiskAndTmpfs runs f as a subtest on a workspace (run id prefix run,
// no ready copies) under each of diskAndTmpfs's roots.
func onDiskAndTmpfs(t *testing.T, run string, f func(t *testing.T, w *Workspace)) {
	t.Helper()
	repo := fastPathRepo(t)
	for name, root := range diskAndTmpfs(t) {
		t.Run(name, func(t *testing.T) {
			m := &Manager{Root: root}
			w, err := m.Prepare(context.Background(), run+name, 1, "builder", events.RepoRef{Path: repo})
			must(t, err)
			defer func() { _ = w.Close() }()
			f(t, w)
		})
	}
}

// mmapWrite changes the first byte of the file p through a shared
// memory mapping, read before it is written: on a filesystem that does
// not track writes to a mapping (tmpfs), no time of the file moves.
func mmapWrite(t *testing.T, p string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	must(t, err)
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	must(t, err)
	b, err := syscall.Mmap(int(f.Fd()), 0, int(info.Size()), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	must(t, err)
	b[0] ^= 0x20 // a read, then the write
	must(t, syscall.Munmap(b))
}

// TestChangeSeesMappedWrites: a command that writes a tracked file
// through a shared memory mapping changes its content; on tmpfs that
// write moves neither its modification nor its change time, so a
// snapshot of the file's identity cannot see it there once a command was
// given the tree. The change must hold the write wherever the workspace
// lies, and be the change git gives reading every path.
func TestChangeSeesMappedWrites(t *testing.T) {
	ctx := context.Background()
	if tracksEveryWrite(filepath.Join(t.TempDir(), "missing")) {
		t.Fatal("a directory that cannot be read is said to track every write")
	}
	repo := fastPathRepo(t)
	roots := diskAndTmpfs(t)
	for name, root := range roots {
		for _, spares := range []int{0, 1} {
			t.Run(name+strconv.Itoa(spares), func(t *testing.T) {
				m := &Manager{Root: root, Spares: spares}
				t.Cleanup(m.Wait)
				m.Wait()
				w, err := m.Prepare(ctx, "mmap"+name, spares, "builder", events.RepoRef{Path: repo})
				must(t, err)
				defer func() { _ = w.Close() }()
				if w.snap == nil || w.snap.everyWrite != tracksEveryWrite(w.Dir) {
					t.Fatalf("snapshot %+v on a filesystem that tracks every write: %v", w.snap, tracksEveryWrite(w.Dir))
				}
				// What a command is given: from here on, on tmpfs, the
				// snapshot is not trusted.
				if _, err := w.Command(os.Getenv); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(w.Dir, "keep.txt")
				mmapWrite(t, p)
				if data, err := os.ReadFile(p); err != nil || string(data) != "Keep\n" {
					t.Fatalf("the mapped write did not change the file: %q, %v", data, err)
				}
				_, _, all, ok := w.scan()
				if !ok || all == w.snap.everyWrite {
					t.Fatalf("after a command, git reads every path: %v (ok %v); the filesystem tracks every write: %v", all, ok, w.snap.everyWrite)
				}
				ch, err := w.Change(ctx)
				must(t, err)
				if ops(ch)["keep.txt"] != "modify" {
					t.Fatalf("the write through a mapping is not in the change (every write tracked: %v): %+v", w.snap.everyWrite, ch)
				}
				w.snap = nil
				full, err := w.Change(ctx)
				must(t, err)
				if !reflect.DeepEqual(ch, full) {
					t.Fatalf("change %+v\ngit reading every path %+v", ch, full)
				}
			})
		}
	}
}

// TestSnapshotKeptWithoutCommands: on any filesystem, a tree no command
// was given keeps its snapshot (the builder's file tools and git write
// with system calls that move the change time everywhere): a tool's edit
// is seen and git is given only that path.
func TestSnapshotKeptWithoutCommands(t *testing.T) {
	ctx := context.Background()
	onDiskAndTmpfs(t, "keep", func(t *testing.T, w *Workspace) {
		if w.snap == nil {
			t.Fatal("no snapshot")
		}
		write(t, filepath.Join(w.Dir, "keep.txt"), "kept\n")
		_, check, all, ok := w.scan()
		if !ok || all || !reflect.DeepEqual(check, []string{"keep.txt"}) {
			t.Fatalf("git is given %q (every path: %v, ok %v), want only keep.txt", check, all, ok)
		}
		ch, err := w.Change(ctx)
		must(t, err)
		if ops(ch)["keep.txt"] != "modify" || len(ch.Files) != 1 {
			t.Fatalf("change %+v", ch)
		}
	})
}

// TestChangeSeesMappedWritesAfterAChange: a change read before a command
// leaves the tree's stat data in the index (git refreshes it), and git
// does not read a file whose stat data matches its entry. A later write
// through a mapping, which on tmpfs moves no time, must still be in the
// next change: on such a filesystem the index's stat data is dropped
// first. The file's modification time is put in the past (which moves
// its change time) so its entry is not racy for git either, as it is
// not for a file written a second before the change is read. The second
// round reads the change staged (with .context paths), where git add
// trusts the index's stat data the same way.
func TestChangeSeesMappedWritesAfterAChange(t *testing.T) {
	ctx := context.Background()
	onDiskAndTmpfs(t, "mmap2", func(t *testing.T, w *Workspace) {
		p := filepath.Join(w.Dir, "keep.txt")
		past := time.Now().Add(-time.Hour)
		must(t, os.Chtimes(p, past, past))
		for i, contextPaths := range [][]string{nil, ContextChangePaths} {
			ch, err := w.ChangeWith(ctx, contextPaths...)
			must(t, err)
			if len(ch.Files) != i {
				t.Fatalf("change %d before the command: %+v", i, ch)
			}
			if _, err := w.Command(os.Getenv); err != nil {
				t.Fatal(err)
			}
			mmapWrite(t, p)
			ch, err = w.ChangeWith(ctx, contextPaths...)
			must(t, err)
			// The second write puts the file back as it was.
			if got := ops(ch)["keep.txt"] == "modify"; got != (i == 0) || len(ch.Files) != 1-i {
				t.Fatalf("the write through a mapping after a change was read is not in the change %d: %+v", i, ch)
			}
		}
	})
}

// TestResetIndexStatFails: a baseline git cannot read the index from is
// an error of the change, never a change read from a stale index.
func TestResetIndexStatFails(t *testing.T) {
	ctx := context.Background()
	shm := tmpfsDir(t)
	if shm == "" {
		t.Skip("no tmpfs at /dev/shm")
	}
	m := &Manager{Root: shm}
	w, err := m.Prepare(ctx, "reset", 1, "builder", events.RepoRef{Path: fastPathRepo(t)})
	must(t, err)
	defer func() { _ = w.Close() }()
	_, err = w.Change(ctx)
	must(t, err)
	if _, err := w.Command(os.Getenv); err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(w.gitDir, "HEAD"), []byte(strings.Repeat("0", 40)+"\n"), 0o644))
	if _, err := w.Change(ctx); !errors.Is(err, ErrGit) {
		t.Fatalf("a baseline that cannot be read: %v, want ErrGit", err)
	}
}

// TestLocalBaseSeesMappedWrites: a local repository on tmpfs written
// through a shared mapping keeps every time and size of its entries, so
// its signature must read the contents there, or the next workspace would
// be a copy of the cached base holding what the file held before.
func TestLocalBaseSeesMappedWrites(t *testing.T) {
	ctx := context.Background()
	shm := tmpfsDir(t)
	if shm == "" {
		t.Skip("no tmpfs at /dev/shm")
	}
	src := filepath.Join(shm, "src")
	write(t, filepath.Join(src, "keep.txt"), "keep\n")
	m := &Manager{Root: t.TempDir()}
	w, err := m.Prepare(ctx, "base1", 1, "builder", events.RepoRef{Path: src})
	must(t, err)
	must(t, w.Close())
	mmapWrite(t, filepath.Join(src, "keep.txt"))
	w, err = m.Prepare(ctx, "base2", 1, "builder", events.RepoRef{Path: src})
	must(t, err)
	defer func() { _ = w.Close() }()
	if data, err := os.ReadFile(filepath.Join(w.Dir, "keep.txt")); err != nil || string(data) != "Keep\n" {
		t.Fatalf("the workspace holds %q (%v), want the mapped write", data, err)
	}
}

// TestContentSumFails: a file that cannot be read fails the signature.
func TestContentSumFails(t *testing.T) {
	if _, err := contentSum(filepath.Join(t.TempDir(), "gone"), 1<<20); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing file: %v, want ErrNotExist", err)
	}
	p := filepath.Join(t.TempDir(), "f")
	write(t, p, "abc")
	a, err := contentSum(p, 1<<20)
	must(t, err)
	write(t, p, "abd")
	if b, err := contentSum(p, 1<<20); err != nil || a == b {
		t.Fatalf("sums %s and %s (%v) of different contents", a, b, err)
	}
}
