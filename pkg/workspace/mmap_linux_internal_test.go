//go:build linux

package workspace

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"syscall"
	"testing"

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
	roots := map[string]string{"disk": t.TempDir()}
	if shm := tmpfsDir(t); shm != "" {
		roots["tmpfs"] = shm
	}
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
	repo := fastPathRepo(t)
	roots := map[string]string{"disk": t.TempDir()}
	if shm := tmpfsDir(t); shm != "" {
		roots["tmpfs"] = shm
	}
	for name, root := range roots {
		t.Run(name, func(t *testing.T) {
			m := &Manager{Root: root}
			w, err := m.Prepare(ctx, "keep"+name, 1, "builder", events.RepoRef{Path: repo})
			must(t, err)
			defer func() { _ = w.Close() }()
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
}
