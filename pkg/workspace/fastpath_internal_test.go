package workspace

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
)

// fastPathRepo is a repository with the kinds of entries the fast paths
// must read as git does: text, binary, executable, link and odd names.
func fastPathRepo(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	files := map[string]string{
		"a.txt": "one\ntwo\n", "b.txt": "b\n", "bin.dat": "x\x00y", "tool.sh": "#!/bin/sh\n",
		"dir/c.txt": "c\n", "odd\nname\t:x.txt": "odd\n", "keep.txt": "keep\n",
	}
	for name, body := range files {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a.txt", filepath.Join(repo, "link")); err != nil {
		t.Fatal(err)
	}
	return repo
}

func write(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ops(ch events.Change) map[string]string {
	m := map[string]string{}
	for _, f := range ch.Files {
		m[f.Path] = f.Op
	}
	return m
}

// TestChangeFastPathMatchesStaged: when nothing untracked is in the tree,
// Change reads the work tree against the index with one git process; the
// result must be exactly what staging everything and reading the staged
// change gives. And the critic's ApplyChange of that diff reports the same
// files, ops and line counts.
func TestChangeFastPathMatchesStaged(t *testing.T) {
	ctx := context.Background()
	repo := fastPathRepo(t)
	m := &Manager{Root: t.TempDir()}
	cases := []struct {
		name string
		edit func(t *testing.T, dir string)
	}{
		{"nothing", func(*testing.T, string) {}},
		{"modify", func(t *testing.T, d string) { write(t, filepath.Join(d, "a.txt"), "one\n2\nthree\n") }},
		{"delete", func(t *testing.T, d string) { must(t, os.Remove(filepath.Join(d, "dir/c.txt"))) }},
		{"chmod", func(t *testing.T, d string) { must(t, os.Chmod(filepath.Join(d, "tool.sh"), 0o755)) }},
		{"binary", func(t *testing.T, d string) { write(t, filepath.Join(d, "bin.dat"), "x\x00z\x01") }},
		{"file to link", func(t *testing.T, d string) {
			must(t, os.Remove(filepath.Join(d, "b.txt")))
			must(t, os.Symlink("keep.txt", filepath.Join(d, "b.txt")))
		}},
		{"link to file", func(t *testing.T, d string) {
			must(t, os.Remove(filepath.Join(d, "link")))
			write(t, filepath.Join(d, "link"), "now a file\n")
		}},
		{"odd name", func(t *testing.T, d string) { write(t, filepath.Join(d, "odd\nname\t:x.txt"), "even\n") }},
		{"touched but equal, and one edit", func(t *testing.T, d string) {
			write(t, filepath.Join(d, "keep.txt"), "keep\n")
			write(t, filepath.Join(d, "b.txt"), "B\n")
		}},
		{"new files only under .context", func(t *testing.T, d string) {
			write(t, filepath.Join(d, ".context/scratchpad/notes.md"), "x\n")
			write(t, filepath.Join(d, "a.txt"), "changed\n")
		}},
		{"emptied", func(t *testing.T, d string) { write(t, filepath.Join(d, "a.txt"), "") }},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := "fast" + string(rune('a'+i))
			w, err := m.Prepare(ctx, run, 1, "builder", events.RepoRef{Path: repo})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = w.Close() }()
			if w.tracked == nil {
				t.Fatal("the base does not list its tracked paths")
			}
			tc.edit(t, w.Dir)
			if w.hasUntracked() {
				t.Fatal("the fast path is not taken")
			}
			fast, err := w.Change(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.runGit(ctx, w.Dir, w.gitDir, 64<<10, "add", "--all", "--force", "--", "."); err != nil {
				t.Fatal(err)
			}
			staged, err := w.changeOf(ctx, true, []string{"--", ".", ":(exclude).context"})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fast, staged) {
				t.Fatalf("fast path:\n%+v\nstaged:\n%+v", fast, staged)
			}
			c, err := m.Prepare(ctx, run, 1, "critic", events.RepoRef{Path: repo})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = c.Close() }()
			applied, err := c.ApplyChange(ctx, fast.Diff)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ops(applied), ops(fast)) || applied.Added != fast.Added || applied.Removed != fast.Removed || applied.Diff != fast.Diff {
				t.Fatalf("applied %+v\nbuilt %+v", applied, fast)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestHasUntrackedSeesEveryNewEntry: anything new outside .context sends
// Change to the staging path (which is what picks new files up).
func TestHasUntrackedSeesEveryNewEntry(t *testing.T) {
	ctx := context.Background()
	repo := fastPathRepo(t)
	m := &Manager{Root: t.TempDir()}
	cases := map[string]func(t *testing.T, d string){
		"new file":       func(t *testing.T, d string) { write(t, filepath.Join(d, "new.txt"), "n\n") },
		"new empty file": func(t *testing.T, d string) { write(t, filepath.Join(d, "dir/empty"), "") },
		"new link":       func(t *testing.T, d string) { must(t, os.Symlink("a.txt", filepath.Join(d, "l2"))) },
		"fifo":           func(t *testing.T, d string) { must(t, syscall.Mkfifo(filepath.Join(d, "fifo"), 0o644)) },
		"file to dir": func(t *testing.T, d string) {
			must(t, os.Remove(filepath.Join(d, "b.txt")))
			write(t, filepath.Join(d, "b.txt/inner"), "i\n")
		},
		"git metadata": func(t *testing.T, d string) { write(t, filepath.Join(d, "sub/.git/HEAD"), "ref\n") },
		"context-like": func(t *testing.T, d string) { write(t, filepath.Join(d, ".contextual"), "x\n") },
	}
	i := 0
	for name, edit := range cases {
		i++
		t.Run(name, func(t *testing.T) {
			w, err := m.Prepare(ctx, "untracked"+string(rune('a'+i)), 1, "builder", events.RepoRef{Path: repo})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = w.Close() }()
			if w.hasUntracked() {
				t.Fatal("a fresh workspace has untracked entries")
			}
			edit(t, w.Dir)
			if !w.hasUntracked() {
				t.Fatal("the new entry is not seen")
			}
		})
	}
}

// TestChangeWithoutTrackedList: a base made before bases listed their
// tracked paths still gives the same change and the same applied change.
func TestChangeWithoutTrackedList(t *testing.T) {
	ctx := context.Background()
	repo := fastPathRepo(t)
	m := &Manager{Root: t.TempDir()}
	w, err := m.Prepare(ctx, "old", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	withList, err := func() (events.Change, error) {
		write(t, filepath.Join(w.Dir, "a.txt"), "x\n")
		return w.Change(ctx)
	}()
	if err != nil {
		t.Fatal(err)
	}
	w.tracked = nil
	without, err := w.Change(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withList, without) {
		t.Fatalf("with the list %+v, without %+v", withList, without)
	}
	c, err := m.Prepare(ctx, "old", 1, "critic", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	c.tracked = nil
	applied, err := c.ApplyChange(ctx, without.Diff)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ops(applied), ops(without)) || applied.Added != without.Added {
		t.Fatalf("applied %+v, built %+v", applied, without)
	}
}

func TestParseApplyNumstat(t *testing.T) {
	ch, err := parseApplyNumstat("1\t2\ta b\x00-\t-\tbin\x000\t0\t\x00old\x00new\x00")
	if err != nil {
		t.Fatal(err)
	}
	want := []events.FileChange{{Path: "a b"}, {Path: "bin"}, {Path: "old"}, {Path: "new"}}
	if !reflect.DeepEqual(ch.Files, want) || ch.Added != 1 || ch.Removed != 2 {
		t.Fatalf("%+v", ch)
	}
	for _, bad := range []string{"1\t2\tno-end", "1\t2\x00", "x\t2\tp\x00", "1\t-3\tp\x00", "0\t0\t\x00old\x00", "0\t0\t\x00\x00new\x00"} {
		if _, err := parseApplyNumstat(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
