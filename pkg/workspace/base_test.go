package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/workspace"
)

func bases(t *testing.T, m *workspace.Manager) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(m.Root, ".bases"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Workspaces made from one cached base never see each other's edits, and
// edits never reach the base.
func TestRunsNeverSeeEachOthersEdits(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{"a.txt": "original\n", "d/b.txt": "b\n"})
	m := &workspace.Manager{Root: t.TempDir()}
	a, err := m.Prepare(ctx, "runA", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, a.Dir, map[string]string{"a.txt": "edited by A\n", "new.txt": "A\n"})
	if err := os.Remove(filepath.Join(a.Dir, "d", "b.txt")); err != nil {
		t.Fatal(err)
	}
	b, err := m.Prepare(ctx, "runB", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(b.Dir, "a.txt")); got != "original\n" {
		t.Fatalf("run B sees %q", got)
	}
	if _, err := os.Stat(filepath.Join(b.Dir, "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("run B sees run A's new file: %v", err)
	}
	if read(t, filepath.Join(b.Dir, "d", "b.txt")) != "b\n" {
		t.Fatal("run B lost a file run A deleted")
	}
	chB, err := b.Change(ctx)
	if err != nil || !chB.Empty() {
		t.Fatalf("run B's change %+v %v", chB, err)
	}
	chA, err := a.Change(ctx)
	if err != nil || len(chA.Files) != 3 {
		t.Fatalf("run A's change %+v %v", chA.Files, err)
	}
	if len(bases(t, m)) != 1 {
		t.Fatalf("bases %v, want one shared base", bases(t, m))
	}
}

// A changed source gets a new base, also when the edit keeps size and
// modification time.
func TestBaseFollowsTheSource(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{"a.txt": "one\n"})
	m := &workspace.Manager{Root: t.TempDir()}
	if _, err := m.Prepare(ctx, "r1", 1, "builder", events.RepoRef{Path: repo}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(repo, "a.txt")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, repo, map[string]string{"a.txt": "two\n"})
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	w, err := m.Prepare(ctx, "r2", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(w.Dir, "a.txt")); got != "two\n" {
		t.Fatalf("stale base: %q", got)
	}
	if ch, err := w.Change(ctx); err != nil || !ch.Empty() {
		t.Fatalf("the baseline is not the new content: %+v %v", ch, err)
	}
}

// Old bases are pruned; a workspace made from a pruned base still works.
func TestBasesPruned(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	m := &workspace.Manager{Root: t.TempDir(), MaxBases: 2}
	var first *workspace.Workspace
	for i, body := range []string{"1\n", "22\n", "333\n", "4444\n"} {
		writeFiles(t, repo, map[string]string{"a.txt": body})
		// Distinct use times, whatever the clock's resolution.
		for _, b := range bases(t, m) {
			old := time.Now().Add(-time.Duration(10-i) * time.Minute)
			_ = os.Chtimes(filepath.Join(m.Root, ".bases", b, "ready"), old, old)
		}
		w, err := m.Prepare(ctx, "r"+body[:1], 1, "builder", events.RepoRef{Path: repo})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = w
		}
	}
	if n := len(bases(t, m)); n > 2 {
		t.Fatalf("%d bases kept, want at most 2: %v", n, bases(t, m))
	}
	writeFiles(t, first.Dir, map[string]string{"a.txt": "edited\n"})
	ch, err := first.Change(ctx)
	if err != nil || len(ch.Files) != 1 || ch.Added != 1 || ch.Removed != 1 {
		t.Fatalf("a workspace of a pruned base: %+v %v", ch, err)
	}
}

// A URL at a commit that has a base needs no clone.
func TestURLBaseReusedByCommit(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	git := gitRepo(t, src, map[string]string{"f.txt": "v1\n"})
	commit := git("rev-parse", "HEAD")
	m := &workspace.Manager{Root: t.TempDir()}
	w, err := m.Prepare(ctx, "r", 1, "librarian", events.RepoRef{URL: "file://" + src})
	if err != nil || w.Commit != commit {
		t.Fatalf("%v %q", err, w.Commit)
	}
	gone := src + ".moved"
	if err := os.Rename(src, gone); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Rename(gone, src) })
	p, err := m.Prepare(ctx, "r", 1, "builder", events.RepoRef{URL: "file://" + src, Ref: commit})
	if err != nil {
		t.Fatalf("a pinned commit with a base cloned again: %v", err)
	}
	if read(t, filepath.Join(p.Dir, "f.txt")) != "v1\n" || p.Commit != commit {
		t.Fatalf("wrong tree or commit %q", p.Commit)
	}
}

// Concurrent Prepares of one repository state share one base and each get
// a complete workspace.
func TestConcurrentPreparesShareABase(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
	m := &workspace.Manager{Root: t.TempDir()}
	errs := make(chan error, 6)
	for i := 0; i < 6; i++ {
		go func() {
			w, err := m.Prepare(ctx, "run"+string(rune('a'+i)), 1, "builder", events.RepoRef{Path: repo})
			if err == nil {
				var ch events.Change
				if ch, err = w.Change(ctx); err == nil && !ch.Empty() {
					err = os.ErrInvalid
				}
			}
			errs <- err
		}()
	}
	for i := 0; i < 6; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := bases(t, m); len(got) != 1 {
		t.Fatalf("bases %v, want one", got)
	}
}
