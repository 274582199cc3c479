package workspace

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
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
			compareWithStaged(t, m, repo, "fast"+strconv.Itoa(i), tc.edit, true)
		})
	}
}

// compareWithStaged prepares a builder workspace, edits it, and checks
// that Change gives what staging everything and reading the staged change
// gives (and, with unstaged, that it took the unstaged way), and that the
// critic's ApplyChange of the diff reports the same files, ops and counts.
func compareWithStaged(t *testing.T, m *Manager, repo, run string, edit func(t *testing.T, dir string), unstaged bool) {
	t.Helper()
	ctx := context.Background()
	w, err := m.Prepare(ctx, run, 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Close() }()
	if w.tracked == nil {
		t.Fatal("the base does not list its tracked paths")
	}
	edit(t, w.Dir)
	pathspec := []string{"--", ".", ":(exclude).context"}
	_, took, err := w.unstagedChange(ctx, pathspec)
	if err != nil {
		t.Fatal(err)
	}
	if took != unstaged {
		t.Fatalf("unstaged way taken: %v, want %v", took, unstaged)
	}
	fast, err := w.Change(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sameAsStaged(t, w, pathspec, fast)
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
}

// TestNewFilePatchesMatchGit: new text files are written here exactly as
// git writes them, in git's order among the tracked files' changes.
func TestNewFilePatchesMatchGit(t *testing.T) {
	repo := fastPathRepo(t)
	m := &Manager{Root: t.TempDir()}
	cases := []struct {
		name string
		edit func(t *testing.T, dir string)
	}{
		{"one line", func(t *testing.T, d string) { write(t, filepath.Join(d, "bench.txt"), "bench\n") }},
		{"no newline at the end", func(t *testing.T, d string) { write(t, filepath.Join(d, "n.txt"), "x\ny") }},
		{"one line without newline", func(t *testing.T, d string) { write(t, filepath.Join(d, "n.txt"), "x") }},
		{"empty", func(t *testing.T, d string) { write(t, filepath.Join(d, "empty"), "") }},
		{"only newlines", func(t *testing.T, d string) { write(t, filepath.Join(d, "nl"), "\n\n\n") }},
		{"crlf and tabs", func(t *testing.T, d string) { write(t, filepath.Join(d, "w.txt"), "a\r\n\tb \r\n") }},
		{"non-ascii content", func(t *testing.T, d string) { write(t, filepath.Join(d, "u.txt"), "héllo ✓\n") }},
		{"space in the name", func(t *testing.T, d string) { write(t, filepath.Join(d, "sp ace.txt"), "q\n") }},
		{"executable", func(t *testing.T, d string) {
			write(t, filepath.Join(d, "run.sh"), "#!/bin/sh\n")
			must(t, os.Chmod(filepath.Join(d, "run.sh"), 0o744))
		}},
		{"nested new directories", func(t *testing.T, d string) { write(t, filepath.Join(d, "x/y/z.go"), "package z\n") }},
		{"interleaved with tracked changes", func(t *testing.T, d string) {
			write(t, filepath.Join(d, "a.txt"), "A\n")
			write(t, filepath.Join(d, "a.new"), "new\n")
			write(t, filepath.Join(d, "dir/b.txt"), "b\n")
			write(t, filepath.Join(d, "dir.txt"), "d\n")
			write(t, filepath.Join(d, "zzz"), "z\n")
			write(t, filepath.Join(d, "0first"), "0\n")
			must(t, os.Remove(filepath.Join(d, "dir/c.txt")))
		}},
		{"next to a type change", func(t *testing.T, d string) {
			must(t, os.Remove(filepath.Join(d, "b.txt")))
			must(t, os.Symlink("keep.txt", filepath.Join(d, "b.txt")))
			write(t, filepath.Join(d, "b.txt0"), "after\n")
			write(t, filepath.Join(d, "b.tx"), "before\n")
		}},
		{"file turned into a directory", func(t *testing.T, d string) {
			must(t, os.Remove(filepath.Join(d, "b.txt")))
			write(t, filepath.Join(d, "b.txt/inner"), "i\n")
		}},
		{"a long file", func(t *testing.T, d string) {
			var b strings.Builder
			for i := range 5000 {
				b.WriteString("line " + strconv.Itoa(i) + "\n")
			}
			write(t, filepath.Join(d, "long.txt"), b.String())
		}},
		{"new file under .context too", func(t *testing.T, d string) {
			write(t, filepath.Join(d, ".context/x.json"), "{}")
			write(t, filepath.Join(d, "real.txt"), "r\n")
		}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			compareWithStaged(t, m, repo, "new"+strconv.Itoa(i), tc.edit, true)
		})
	}
}

// TestNewFilesGitMustWrite: what newFilePatches cannot write exactly goes
// the staging way, and the change is still git's.
func TestNewFilesGitMustWrite(t *testing.T) {
	repo := fastPathRepo(t)
	m := &Manager{Root: t.TempDir()}
	cases := map[string]func(t *testing.T, d string){
		"binary":     func(t *testing.T, d string) { write(t, filepath.Join(d, "b.bin"), "a\x00b") },
		"link":       func(t *testing.T, d string) { must(t, os.Symlink("a.txt", filepath.Join(d, "l2"))) },
		"tab name":   func(t *testing.T, d string) { write(t, filepath.Join(d, "t\tab"), "x\n") },
		"quote name": func(t *testing.T, d string) { write(t, filepath.Join(d, "q\"uote"), "x\n") },
		"utf-8 name": func(t *testing.T, d string) { write(t, filepath.Join(d, "é.txt"), "x\n") },
		"attributes": func(t *testing.T, d string) { write(t, filepath.Join(d, ".gitattributes"), "*.txt eol=crlf\n") },
		"too large": func(t *testing.T, d string) {
			write(t, filepath.Join(d, "big.txt"), strings.Repeat("a\n", maxNewFileBytes))
		},
		"fifo": func(t *testing.T, d string) { must(t, syscall.Mkfifo(filepath.Join(d, "fifo"), 0o644)) },
		// git never stages a path through git metadata (a command that
		// ran `git init`, a .git file): neither may the change hold one.
		"git directory": func(t *testing.T, d string) { write(t, filepath.Join(d, "sub/.git/HEAD"), "ref\n") },
		"git file":      func(t *testing.T, d string) { write(t, filepath.Join(d, "sub/.git"), "gitdir: x\n") },
	}
	i := 0
	for name, edit := range cases {
		i++
		t.Run(name, func(t *testing.T) {
			compareWithStaged(t, m, repo, "git"+strconv.Itoa(i), func(t *testing.T, d string) {
				edit(t, d)
				write(t, filepath.Join(d, "plain.txt"), "p\n")
			}, false)
		})
	}
}

// TestTrackedAttributesStage: a repository with .gitattributes always
// takes the staging way for new files.
func TestTrackedAttributesStage(t *testing.T) {
	repo := fastPathRepo(t)
	write(t, filepath.Join(repo, "sub/.gitattributes"), "*.txt text eol=crlf\n")
	m := &Manager{Root: t.TempDir()}
	compareWithStaged(t, m, repo, "attr", func(t *testing.T, d string) { write(t, filepath.Join(d, "sub/n.txt"), "a\nb\n") }, false)
	compareWithStaged(t, m, repo, "attr2", func(t *testing.T, d string) { write(t, filepath.Join(d, "a.txt"), "edit\n") }, true)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestUntrackedFilesSeesEveryNewEntry: anything new outside .context sends
// is listed.
func TestUntrackedFilesSeesEveryNewEntry(t *testing.T) {
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
			if news, _, _, ok := w.scan(); !ok || len(news) != 0 {
				t.Fatalf("a fresh workspace: %q, %v", news, ok)
			}
			edit(t, w.Dir)
			if news, _, _, ok := w.scan(); !ok || len(news) == 0 {
				t.Fatalf("the new entry is not seen: %q, %v", news, ok)
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
	ch, err := parseApplyNumstat("1\t2\ta b\x00-\t-\tbin\x003\t0\tnew\x00")
	if err != nil {
		t.Fatal(err)
	}
	want := []events.FileChange{{Path: "a b"}, {Path: "bin"}, {Path: "new"}}
	if !reflect.DeepEqual(ch.Files, want) || ch.Added != 4 || ch.Removed != 2 {
		t.Fatalf("%+v", ch)
	}
	for _, bad := range []string{"1\t2\tno-end", "1\t2\x00", "x\t2\tp\x00", "1\t-3\tp\x00", "0\t0\t\x00"} {
		if _, err := parseApplyNumstat(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestChangeRandomEdits: random edits of tracked files and random new
// text files give git's change exactly (a differential test against
// staging everything).
func TestChangeRandomEdits(t *testing.T) {
	repo := fastPathRepo(t)
	m := &Manager{Root: t.TempDir()}
	rng := rand.New(rand.NewPCG(7, 11))
	text := func() string {
		alphabet := []string{"a", "b", " ", "\t", "\n", "\n", "\r\n", "é", "x y", "}", "-", "+", "@@", "\\"}
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	name := func() string {
		const chars = "abc xyz._-019"
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteByte(chars[rng.IntN(len(chars))])
		}
		if rng.IntN(3) == 0 {
			return "new/" + b.String()
		}
		return "n" + b.String()
	}
	tracked := []string{"a.txt", "b.txt", "tool.sh", "dir/c.txt", "keep.txt"}
	for i := range 25 {
		edits := 1 + rng.IntN(5)
		compareWithStaged(t, m, repo, "rnd"+strconv.Itoa(i), func(t *testing.T, d string) {
			for range edits {
				switch rng.IntN(4) {
				case 0:
					write(t, filepath.Join(d, tracked[rng.IntN(len(tracked))]), text())
				case 1:
					_ = os.Remove(filepath.Join(d, tracked[rng.IntN(len(tracked))]))
				case 2:
					_ = os.Chmod(filepath.Join(d, tracked[rng.IntN(len(tracked))]), 0o755)
				default:
					p := filepath.Join(d, name())
					if _, err := os.Lstat(p); err == nil {
						continue
					}
					write(t, p, text())
					if rng.IntN(4) == 0 {
						must(t, os.Chmod(p, 0o700))
					}
				}
			}
		}, true)
	}
}

// TestChangeAgainAfterStaging: once a change was read by staging (a new
// binary file), the index is no longer the baseline's; a later Change
// must still be the whole change against the baseline, not the work tree
// against what was staged.
func TestChangeAgainAfterStaging(t *testing.T) {
	ctx := context.Background()
	repo := fastPathRepo(t)
	m := &Manager{Root: t.TempDir()}
	w, err := m.Prepare(ctx, "again", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Close() }()
	write(t, filepath.Join(w.Dir, "a.txt"), "changed\n")
	write(t, filepath.Join(w.Dir, "new.bin"), "a\x00b")
	if _, err := w.Change(ctx); err != nil {
		t.Fatal(err)
	}
	must(t, os.Remove(filepath.Join(w.Dir, "new.bin")))
	ch, err := w.Change(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := ops(ch); !reflect.DeepEqual(got, map[string]string{"a.txt": "modify"}) {
		t.Fatalf("second change %v, want a.txt modified only:\n%s", got, ch.Diff)
	}
}

// sameAsStaged stages the whole work tree of w and fails the test unless
// the staged change restricted to pathspec is change.
func sameAsStaged(t *testing.T, w *Workspace, pathspec []string, change events.Change) {
	t.Helper()
	ctx := context.Background()
	if _, err := w.runGit(ctx, w.Dir, w.gitDir, 64<<10, "add", "--all", "--force", "--", "."); err != nil {
		t.Fatal(err)
	}
	staged, _, err := w.changeOf(ctx, true, pathspec)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(change, staged) {
		t.Fatalf("Change:\n%+v\nstaged:\n%+v", change, staged)
	}
}

// TestNewFilesReadWithinTheDiffBound: new files are read here only up to
// the diff's bound in all (a command can leave thousands of files of up
// to maxNewFileBytes each; reading them all would hold them in memory at
// once); more goes the staging way, where git's output is bounded, and
// the change is too large.
func TestNewFilesReadWithinTheDiffBound(t *testing.T) {
	repo := fastPathRepo(t)
	const bound = 64 << 10
	m := &Manager{Root: t.TempDir(), Limits: Limits{MaxDiffBytes: bound}}
	w, err := m.Prepare(context.Background(), "bound", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for i := 0; i < 8; i++ {
		rel := "new" + strconv.Itoa(i) + ".txt"
		write(t, filepath.Join(w.Dir, rel), strings.Repeat("line of text\n", bound/13/4))
		rels = append(rels, rel)
	}
	if _, ok := w.newFilePatches(rels[:2]); !ok {
		t.Fatal("two files within the bound were not written here")
	}
	if patches, ok := w.newFilePatches(rels); ok {
		t.Fatalf("%d new files over the bound were all read", len(patches))
	}
	if _, err := w.Change(context.Background()); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("change: %v, want ErrTooLarge", err)
	}
}
