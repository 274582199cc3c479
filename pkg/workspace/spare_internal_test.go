package workspace

import (
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/syncbuf"
)

func readySpares(m *Manager) int {
	m.spares.mu.Lock()
	defer m.spares.mu.Unlock()
	n := 0
	for _, l := range m.spares.ready {
		n += len(l)
	}
	return n
}

// TestSparesAreTakenAndPristine: with Spares, a Prepare takes a ready copy
// made in the background; it is the base exactly (no change, edits and
// changes work), and an edit in one workspace is never in the next.
func TestSparesAreTakenAndPristine(t *testing.T) {
	ctx := context.Background()
	repo := fastPathRepo(t)
	m := &Manager{Root: t.TempDir(), Spares: 1}
	t.Cleanup(m.Wait)
	prev := ""
	for i := range 4 {
		w, err := m.Prepare(ctx, "run"+strconv.Itoa(i), 1, "builder", events.RepoRef{Path: repo})
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && readySpares(m) != 0 && !strings.HasPrefix(w.Dir, m.Root) {
			t.Fatal("odd workspace")
		}
		ch, err := w.Change(ctx)
		if err != nil || ch.Diff != "" || len(ch.Files) != 0 {
			t.Fatalf("workspace %d is not pristine: %+v %v", i, ch, err)
		}
		if got, _ := os.ReadFile(filepath.Join(w.Dir, "a.txt")); string(got) != "one\ntwo\n" {
			t.Fatalf("workspace %d: a.txt = %q (the last one wrote %q)", i, got, prev)
		}
		prev = "edit " + strconv.Itoa(i) + "\n"
		write(t, filepath.Join(w.Dir, "a.txt"), prev)
		write(t, filepath.Join(w.Dir, "new.txt"), prev)
		ch, err = w.Change(ctx)
		if err != nil || len(ch.Files) != 2 {
			t.Fatalf("change %+v %v", ch, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(w.Dir); !os.IsNotExist(err) {
			t.Fatalf("closed workspace still there: %v", err)
		}
		m.Wait()
		if n := readySpares(m); n != 1 {
			t.Fatalf("%d spares ready after workspace %d, want 1", n, i)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(m.Root, sparesDirName))
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ownerPrefix) {
			t.Errorf("left under the spares: %s", e.Name())
			continue
		}
		inner, _ := os.ReadDir(filepath.Join(m.Root, sparesDirName, e.Name()))
		for _, f := range inner {
			if f.Name() != ownerLock && !strings.HasPrefix(f.Name(), "spare-") {
				t.Errorf("left under the spares: %s/%s", e.Name(), f.Name())
			}
		}
	}
}

// TestSpareRemovedUnderneath: a ready copy removed by someone else (another
// process sharing the root) is dropped, and Prepare makes the workspace
// itself.
func TestSpareRemovedUnderneath(t *testing.T) {
	ctx := context.Background()
	repo := fastPathRepo(t)
	m := &Manager{Root: t.TempDir(), Spares: 1}
	t.Cleanup(m.Wait)
	w, err := m.Prepare(ctx, "run1", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	m.Wait()
	if err := os.RemoveAll(filepath.Join(m.Root, sparesDirName)); err != nil {
		t.Fatal(err)
	}
	w, err = m.Prepare(ctx, "run2", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(w.Dir, "a.txt")); string(got) != "one\ntwo\n" {
		t.Fatalf("a.txt = %q", got)
	}
	_ = w.Close()
}

// TestSparesFollowTheRepository: after the repository changes, workspaces
// hold the new state, never a spare of the old one.
func TestSparesFollowTheRepository(t *testing.T) {
	ctx := context.Background()
	repo := fastPathRepo(t)
	m := &Manager{Root: t.TempDir(), Spares: 2}
	t.Cleanup(m.Wait)
	for i := range 3 {
		body := "state " + strconv.Itoa(i) + "\n"
		write(t, filepath.Join(repo, "a.txt"), body)
		for j := range 2 {
			w, err := m.Prepare(ctx, "run"+strconv.Itoa(i*2+j), 1, "critic", events.RepoRef{Path: repo})
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(filepath.Join(w.Dir, "a.txt")); string(got) != body {
				t.Fatalf("a.txt = %q, want %q", got, body)
			}
			_ = w.Close()
			m.Wait()
		}
	}
}

// TestSparesConcurrent: concurrent Prepares each get a workspace of their
// own.
func TestSparesConcurrent(t *testing.T) {
	ctx := context.Background()
	repo := fastPathRepo(t)
	m := &Manager{Root: t.TempDir(), Spares: 2}
	t.Cleanup(m.Wait)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := m.Prepare(ctx, "run"+strconv.Itoa(i), 1, "builder", events.RepoRef{Path: repo})
			if err != nil {
				errs <- err
				return
			}
			mark := filepath.Join(w.Dir, "mine.txt")
			if _, err := os.Stat(mark); err == nil {
				errs <- os.ErrExist
			}
			if err := os.WriteFile(mark, []byte(strconv.Itoa(i)), 0o644); err != nil {
				errs <- err
			}
			if got, _ := os.ReadFile(filepath.Join(w.Dir, "a.txt")); string(got) != "one\ntwo\n" {
				errs <- os.ErrInvalid
			}
			errs <- w.Close()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestSparesOfALiveManagerAreKept: a Manager sharing the root (another
// process) sweeps what processes that are gone left, never the ready
// copies of a Manager still running, however long they waited: removing
// one while its owner takes it would hand out a half-removed workspace.
func TestSparesOfALiveManagerAreKept(t *testing.T) {
	ctx := context.Background()
	repo := fastPathRepo(t)
	root := t.TempDir()
	a := &Manager{Root: root, Spares: 1}
	t.Cleanup(a.Wait)
	w, err := a.Prepare(ctx, "run1", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	a.Wait()
	a.spares.mu.Lock()
	var spareDirs []string
	for _, l := range a.spares.ready {
		for _, sp := range l {
			spareDirs = append(spareDirs, sp.dir)
		}
	}
	a.spares.mu.Unlock()
	if len(spareDirs) == 0 {
		t.Fatal("no spare made")
	}
	// The spares waited long: everything under them is old.
	old := time.Now().Add(-2 * staleSpare)
	must(t, filepath.WalkDir(filepath.Join(root, sparesDirName), func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	}))
	b := &Manager{Root: root, Spares: 1}
	t.Cleanup(b.Wait)
	w, err = b.Prepare(ctx, "run2", 1, "critic", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	b.Wait()
	for _, d := range spareDirs {
		if _, err := os.Stat(spareTree(d)); err != nil {
			t.Fatalf("another Manager removed a live Manager's spare: %v", err)
		}
	}
}

// TestSparesOfAGoneManagerAreSwept: the directory of a Manager whose lock
// nobody holds any more (its process is gone) is removed by the next
// Manager sharing the root.
func TestSparesOfAGoneManagerAreSwept(t *testing.T) {
	ctx := context.Background()
	repo := fastPathRepo(t)
	root := t.TempDir()
	a := &Manager{Root: root, Spares: 1}
	w, err := a.Prepare(ctx, "run1", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	a.Wait()
	own := a.spares.own
	if own == "" {
		t.Fatal("no directory of its own")
	}
	_ = a.spares.lock.Close() // what the end of its process does
	lockless := filepath.Join(root, sparesDirName, ownerPrefix+"died-early")
	must(t, os.MkdirAll(lockless, 0o755))
	fresh := filepath.Join(root, sparesDirName, ownerPrefix+"just-made")
	must(t, os.MkdirAll(fresh, 0o755))
	old := time.Now().Add(-2 * staleSpare)
	must(t, os.Chtimes(own, old, old))
	must(t, os.Chtimes(lockless, old, old))
	b := &Manager{Root: root, Spares: 1}
	t.Cleanup(b.Wait)
	w, err = b.Prepare(ctx, "run2", 1, "critic", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	b.Wait()
	for _, gone := range []string{own, lockless} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s not swept: %v", gone, err)
		}
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a directory just made was swept: %v", err)
	}
}

// TestTrackedListReadOncePerBase: a base's tracked paths are read from it
// once and kept (a base never changes once made), also for workspaces
// taken from ready copies.
func TestTrackedListReadOncePerBase(t *testing.T) {
	ctx := context.Background()
	repo := fastPathRepo(t)
	m := &Manager{Root: t.TempDir(), Spares: 1}
	t.Cleanup(m.Wait)
	w, err := m.Prepare(ctx, "run1", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	if w.tracked == nil {
		t.Fatal("no tracked paths")
	}
	_ = w.Close()
	m.Wait()
	bases, err := filepath.Glob(filepath.Join(m.Root, ".bases", "*", trackedFile))
	if err != nil || len(bases) != 1 {
		t.Fatalf("bases %v %v", bases, err)
	}
	must(t, os.Remove(bases[0]))
	for i := range 2 {
		w, err := m.Prepare(ctx, "run"+strconv.Itoa(i+2), 1, "critic", events.RepoRef{Path: repo})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := w.tracked["a.txt"]; !ok {
			t.Fatalf("workspace %d: the kept tracked paths are not used", i)
		}
		_ = w.Close()
		m.Wait()
	}
}

// TestSpareFailureIsLogged: a ready copy that cannot be made (here the
// spares' directory is a file) is logged, and Prepare still works by
// copying the tree itself.
func TestSpareFailureIsLogged(t *testing.T) {
	ctx := context.Background()
	repo := fastPathRepo(t)
	var logged syncbuf.Buffer
	m := &Manager{Root: t.TempDir(), Spares: 1, Log: slog.New(slog.NewTextHandler(&logged, nil))}
	t.Cleanup(m.Wait)
	write(t, filepath.Join(m.Root, sparesDirName), "not a directory")
	for i := range 2 {
		w, err := m.Prepare(ctx, "run"+strconv.Itoa(i), 1, "builder", events.RepoRef{Path: repo})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	m.Wait()
	if got := logged.String(); !strings.Contains(got, "could not make a ready copy of a repository") || !strings.Contains(got, sparesDirName) {
		t.Fatalf("the failed ready copy was not logged: %q", got)
	}
}
