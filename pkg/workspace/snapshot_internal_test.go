package workspace

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
)

// gitLog makes m run git through a script that records every call's
// arguments; the returned function reads the calls recorded since the
// last read.
func gitLog(t *testing.T, m *Manager) func() [][]string {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\001' \"$a\" >> '" + log + "'; done\nprintf '\\002' >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	m.Git = filepath.Join(dir, "git")
	must(t, os.WriteFile(m.Git, []byte(script), 0o755))
	return func() [][]string {
		data, err := os.ReadFile(log)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		_ = os.Remove(log)
		var calls [][]string
		for _, c := range strings.Split(string(data), "\x02") {
			if c != "" {
				args := strings.Split(strings.TrimSuffix(c, "\x01"), "\x01")
				calls = append(calls, args[len(gitSafeConfig):])
			}
		}
		return calls
	}
}

// diffPathspecs are the pathspecs of the `git diff` calls among calls.
func diffPathspecs(calls [][]string) [][]string {
	var out [][]string
	for _, c := range calls {
		if c[0] == "diff" {
			out = append(out, c[slices.Index(c, "--")+1:])
		}
	}
	return out
}

// needSnapshots skips the test when dir lies on a filesystem where no
// snapshot is taken (see tracksEveryWrite): what it tests is not used
// there.
func needSnapshots(t *testing.T, dir string) {
	t.Helper()
	if !tracksEveryWrite(dir) {
		t.Skipf("no snapshot is taken on the filesystem of %s", dir)
	}
}

// snapshotRepo is fastPathRepo with names a pathspec would read as magic
// or globs, non-ASCII and spaced names, a deeper tree and a tracked file
// under .context (never part of a change).
func snapshotRepo(t *testing.T) string {
	t.Helper()
	repo := fastPathRepo(t)
	for _, name := range []string{
		"sp ace.txt", "g*.txt", "g1.txt", "[ab].txt", "a.txt?", ":colon.txt", ":(exclude)*", ":!a.txt",
		"-dash.txt", "ünï cödé.txt", "deep/er/file.txt", ".context/tracked.md",
	} {
		write(t, filepath.Join(repo, name), name+"\n")
	}
	return repo
}

// prepareSnapped prepares a workspace from a ready copy (made in the
// background, which waits for the clock) and fails unless it has a
// snapshot with no racy path: the fast path is what is tested.
func prepareSnapped(t *testing.T, m *Manager, run, role, repo string) *Workspace {
	t.Helper()
	needSnapshots(t, m.Root)
	m.Wait()
	w, err := m.Prepare(context.Background(), run, 1, role, events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	if w.snap == nil || len(w.snap.racy) != 0 {
		t.Fatalf("%s: no usable snapshot: %+v", role, w.snap)
	}
	return w
}

// compareSnapshot edits a builder workspace that has a snapshot and
// checks that its unstaged change is byte for byte the one git gives
// reading every tracked path (the workspace without its snapshot), and
// what staging everything gives; then that a critic workspace with a
// snapshot applies that diff to the same change as one without. It
// returns the git calls the builder's fast change made.
func compareSnapshot(t *testing.T, m *Manager, calls func() [][]string, repo, run string, edit func(t *testing.T, dir string)) (events.Change, [][]string) {
	t.Helper()
	ctx := context.Background()
	w := prepareSnapped(t, m, run, "builder", repo)
	edit(t, w.Dir)
	pathspec := []string{"--", ".", ":(exclude).context"}
	calls()
	fast, took, err := w.unstagedChange(ctx, pathspec)
	if err != nil {
		t.Fatal(err)
	}
	made := calls()
	snap := w.snap
	w.snap = nil
	full, fullTook, err := w.unstagedChange(ctx, pathspec)
	if err != nil {
		t.Fatal(err)
	}
	w.snap = snap
	if took != fullTook || !reflect.DeepEqual(fast, full) {
		t.Fatalf("with the snapshot (%v):\n%+v\nwithout (%v):\n%+v", took, fast, fullTook, full)
	}
	if !took {
		return fast, made
	}
	sameAsStaged(t, w, pathspec, fast)
	c := prepareSnapped(t, m, run, "critic", repo)
	applied, err := c.ApplyChange(ctx, fast.Diff)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := m.Prepare(ctx, run+"plain", 1, "critic", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = plain.Close() }()
	plain.snap = nil
	want, err := plain.ApplyChange(ctx, fast.Diff)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(applied, want) {
		t.Fatalf("applied with the snapshot:\n%+v\nwithout:\n%+v", applied, want)
	}
	if !reflect.DeepEqual(ops(applied), ops(fast)) || applied.Added != fast.Added || applied.Removed != fast.Removed || applied.Diff != fast.Diff {
		t.Fatalf("applied %+v\nbuilt %+v", applied, fast)
	}
	return fast, made
}

// TestSnapshotChangeMatchesGit: every kind of edit of tracked paths gives
// with the snapshot exactly the change git gives reading every path, and
// git is given exactly the paths that changed (none: no git at all).
func TestSnapshotChangeMatchesGit(t *testing.T) {
	repo := snapshotRepo(t)
	m := &Manager{Root: t.TempDir(), Spares: 1}
	t.Cleanup(m.Wait)
	calls := gitLog(t, m)
	lit := func(paths ...string) []string {
		var out []string
		for _, p := range paths {
			out = append(out, ":(literal)"+p)
		}
		return append(out, ":(exclude).context")
	}
	cases := []struct {
		name string
		edit func(t *testing.T, dir string)
		want [][]string // the pathspecs of the git diff calls
		in   []string   // paths the change must name
	}{
		{"nothing", func(*testing.T, string) {}, nil, nil},
		{"a new file only", func(t *testing.T, d string) { write(t, filepath.Join(d, "bench.txt"), "bench\n") }, nil, []string{"bench.txt"}},
		{"only under .context", func(t *testing.T, d string) {
			write(t, filepath.Join(d, ".context/tracked.md"), "changed\n")
			write(t, filepath.Join(d, ".context/scratchpad/n.md"), "n\n")
		}, nil, nil},
		{"modify", func(t *testing.T, d string) { write(t, filepath.Join(d, "a.txt"), "one\n2\n") }, [][]string{lit("a.txt")}, []string{"a.txt"}},
		{"delete", func(t *testing.T, d string) { must(t, os.Remove(filepath.Join(d, "dir/c.txt"))) }, [][]string{lit("dir/c.txt")}, []string{"dir/c.txt"}},
		{"chmod +x", func(t *testing.T, d string) { must(t, os.Chmod(filepath.Join(d, "b.txt"), 0o755)) }, [][]string{lit("b.txt")}, []string{"b.txt"}},
		{"file to link", func(t *testing.T, d string) {
			must(t, os.Remove(filepath.Join(d, "b.txt")))
			must(t, os.Symlink("keep.txt", filepath.Join(d, "b.txt")))
		}, [][]string{lit("b.txt")}, []string{"b.txt"}},
		{"file to directory", func(t *testing.T, d string) {
			must(t, os.Remove(filepath.Join(d, "b.txt")))
			write(t, filepath.Join(d, "b.txt/inner"), "i\n")
		}, [][]string{lit("b.txt")}, []string{"b.txt", "b.txt/inner"}},
		{"directory to link", func(t *testing.T, d string) {
			// The tracked deep/er/file.txt is still there, behind a link:
			// git sees it deleted, and so must the change.
			must(t, os.Rename(filepath.Join(d, "deep"), filepath.Join(d, "elsewhere")))
			must(t, os.Symlink("elsewhere", filepath.Join(d, "deep")))
		}, nil, nil}, // a new link: the staging way, compared all the same
		{"same size rewritten, modification time put back", func(t *testing.T, d string) {
			p := filepath.Join(d, "keep.txt")
			info, err := os.Lstat(p)
			must(t, err)
			write(t, p, "KEEP\n")
			must(t, os.Chtimes(p, info.ModTime(), info.ModTime()))
		}, [][]string{lit("keep.txt")}, []string{"keep.txt"}},
		{"hard link to a tracked file", func(t *testing.T, d string) {
			must(t, os.Link(filepath.Join(d, "a.txt"), filepath.Join(d, "hard.txt")))
		}, [][]string{lit("a.txt")}, []string{"hard.txt"}},
		{"written through a hard link", func(t *testing.T, d string) {
			must(t, os.Link(filepath.Join(d, "a.txt"), filepath.Join(d, "hard.txt")))
			f, err := os.OpenFile(filepath.Join(d, "hard.txt"), os.O_WRONLY|os.O_APPEND, 0)
			must(t, err)
			_, err = f.WriteString("three\n")
			must(t, err)
			must(t, f.Close())
		}, [][]string{lit("a.txt")}, []string{"a.txt", "hard.txt"}},
		{"touched, content equal", func(t *testing.T, d string) { write(t, filepath.Join(d, "keep.txt"), "keep\n") }, [][]string{lit("keep.txt")}, nil},
		{"odd names", func(t *testing.T, d string) {
			for _, n := range []string{"sp ace.txt", "g*.txt", "[ab].txt", ":colon.txt", ":(exclude)*", ":!a.txt", "-dash.txt", "ünï cödé.txt", "odd\nname\t:x.txt"} {
				write(t, filepath.Join(d, n), "edited\n")
			}
		}, [][]string{lit("-dash.txt", ":!a.txt", ":(exclude)*", ":colon.txt", "[ab].txt", "g*.txt", "odd\nname\t:x.txt", "sp ace.txt", "ünï cödé.txt")},
			[]string{"g*.txt", ":(exclude)*", "ünï cödé.txt"}},
		{"a glob's match unchanged", func(t *testing.T, d string) { write(t, filepath.Join(d, "g*.txt"), "glob\n") }, [][]string{lit("g*.txt")}, []string{"g*.txt"}},
		{"link retargeted", func(t *testing.T, d string) {
			must(t, os.Remove(filepath.Join(d, "link")))
			must(t, os.Symlink("keep.txt", filepath.Join(d, "link")))
		}, [][]string{lit("link")}, []string{"link"}},
		{"replaced by a rename", func(t *testing.T, d string) {
			write(t, filepath.Join(d, "tmp"), "one\ntwo\n") // same content, size
			must(t, os.Rename(filepath.Join(d, "tmp"), filepath.Join(d, "a.txt")))
		}, [][]string{lit("a.txt")}, nil},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ch, made := compareSnapshot(t, m, calls, repo, "snap"+strconv.Itoa(i), tc.edit)
			if tc.want != nil || tc.name == "nothing" || tc.name == "a new file only" || tc.name == "only under .context" {
				if got := diffPathspecs(made); !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("git diff pathspecs %q, want %q", got, tc.want)
				}
			}
			got := ops(ch)
			for _, p := range tc.in {
				if _, ok := got[p]; !ok {
					t.Errorf("%q is not in the change %v", p, got)
				}
			}
		})
	}
}

// TestSnapshotRandomEdits: random edits, deletions, mode and type changes
// of tracked paths and random new files give with the snapshot exactly
// git's change (a differential test against reading every path).
func TestSnapshotRandomEdits(t *testing.T) {
	repo := snapshotRepo(t)
	m := &Manager{Root: t.TempDir(), Spares: 1}
	t.Cleanup(m.Wait)
	calls := gitLog(t, m)
	rng := rand.New(rand.NewPCG(3, 5))
	tracked := []string{"a.txt", "b.txt", "tool.sh", "dir/c.txt", "keep.txt", "bin.dat", "link", "g*.txt", ":colon.txt", "ünï cödé.txt", "deep/er/file.txt"}
	for i := range 20 {
		edits := 1 + rng.IntN(4)
		compareSnapshot(t, m, calls, repo, "rnd"+strconv.Itoa(i), func(t *testing.T, d string) {
			for range edits {
				p := filepath.Join(d, tracked[rng.IntN(len(tracked))])
				switch rng.IntN(6) {
				case 0:
					_ = os.Remove(p)
					write(t, p, strings.Repeat("x\n", rng.IntN(4)))
				case 1:
					_ = os.Remove(p)
				case 2:
					_ = os.Chmod(p, 0o755)
				case 3:
					_ = os.Remove(p)
					_ = os.Symlink("keep.txt", p)
				case 4:
					if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() {
						data, _ := os.ReadFile(p)
						for j := range data {
							data[j] ^= 1
						}
						must(t, os.WriteFile(p, data, 0o644))
						must(t, os.Chtimes(p, info.ModTime(), info.ModTime()))
					}
				default:
					write(t, filepath.Join(d, "new"+strconv.Itoa(rng.IntN(9))+".txt"), "n\n")
				}
			}
		})
	}
}

// TestSnapshotRacyPathIsRead: a write in the clock tick of the snapshot
// can leave a file's identity as recorded; such a racy path is given to
// git on every change. Without the racy mark the same edit is missed
// (which shows the test would see a racy path left out).
func TestSnapshotRacyPathIsRead(t *testing.T) {
	ctx := context.Background()
	repo := snapshotRepo(t)
	m := &Manager{Root: t.TempDir(), Spares: 1}
	t.Cleanup(m.Wait)
	w := prepareSnapped(t, m, "racy", "builder", repo)
	p := filepath.Join(w.Dir, "keep.txt")
	info, err := os.Lstat(p)
	must(t, err)
	write(t, p, "KEEP\n")
	must(t, os.Chtimes(p, info.ModTime(), info.ModTime()))
	// As if the write had left every field as it was: the snapshot
	// records what lstat says now.
	now, err := os.Lstat(p)
	must(t, err)
	id, ok := fileIDOf(now)
	if !ok {
		t.Skip("no file identity on this platform")
	}
	i := w.snap.set.position["keep.txt"]
	w.snap.ids[i] = id
	w.snap.racy = []int{i}
	ch, err := w.Change(ctx)
	must(t, err)
	if ops(ch)["keep.txt"] != "modify" {
		t.Fatalf("the racy path's edit is not in the change: %+v", ch)
	}
	w.snap.racy = nil
	ch, err = w.Change(ctx)
	must(t, err)
	if _, ok := ops(ch)["keep.txt"]; ok {
		t.Fatalf("the forged identity did not hide the edit: the test proves nothing: %+v", ch)
	}
}

// TestTakeSnapshotRefuses: no snapshot, so git reads every tracked path,
// when it cannot be trusted or taken.
func TestTakeSnapshotRefuses(t *testing.T) {
	tree := t.TempDir()
	gitDir := t.TempDir()
	needSnapshots(t, tree)
	write(t, filepath.Join(tree, "a.txt"), "a\n")
	must(t, os.MkdirAll(filepath.Join(tree, "sub"), 0o755))
	set := func(paths ...string) *trackedSet { return newTrackedSet(paths) }
	if s := takeSnapshot(tree, gitDir, set("a.txt"), 0); s == nil || len(s.ids) != 1 {
		t.Fatalf("a plain tree: %+v", s)
	}
	for name, tc := range map[string]struct {
		set    *trackedSet
		gitDir string
	}{
		"no tracked list":        {nil, gitDir},
		"tracked .gitattributes": {set("a.txt", "sub/.gitattributes"), gitDir},
		"a tracked path missing": {set("a.txt", "gone.txt"), gitDir},
		"a submodule directory":  {set("a.txt", "sub"), gitDir},
		"no marker":              {set("a.txt"), filepath.Join(gitDir, "missing")},
	} {
		if s := takeSnapshot(tree, tc.gitDir, tc.set, 0); s != nil {
			t.Errorf("%s: a snapshot was taken", name)
		}
	}
	if _, err := markTime(filepath.Join(gitDir, "missing")); err == nil {
		t.Error("a marker was written in a missing directory")
	}
	if s := takeSnapshot(tree, gitDir, set("a.txt", ".context/x"), 0); s == nil || len(s.ids) != 1 {
		t.Fatalf("paths under .context are not part of a change, nor of its snapshot: %+v", s)
	}
}

// TestScanWithoutUsableSnapshot: a snapshot taken of other tracked paths
// is not used, and more changed paths than git is given one by one (or
// all of them) make git read every path.
func TestScanWithoutUsableSnapshot(t *testing.T) {
	repo := t.TempDir()
	for i := range maxCheckPaths + 1 {
		write(t, filepath.Join(repo, "f"+strconv.Itoa(i)), "x\n")
	}
	write(t, filepath.Join(repo, "other"), "x\n")
	m := &Manager{Root: t.TempDir(), Spares: 1}
	t.Cleanup(m.Wait)
	w := prepareSnapped(t, m, "many", "builder", repo)
	if _, check, all, ok := w.scan(); !ok || all || len(check) != 0 {
		t.Fatalf("a fresh tree: %d to check, all %v, %v", len(check), all, ok)
	}
	for i := range maxCheckPaths + 1 {
		must(t, os.Chmod(filepath.Join(w.Dir, "f"+strconv.Itoa(i)), 0o755))
	}
	if _, check, all, ok := w.scan(); !ok || !all || check != nil {
		t.Fatalf("%d changed paths: %d to check, all %v", maxCheckPaths+1, len(check), all)
	}
	ch, err := w.Change(context.Background())
	must(t, err)
	if len(ch.Files) != maxCheckPaths+1 {
		t.Fatalf("%d files changed, want %d", len(ch.Files), maxCheckPaths+1)
	}
	w.trackedSet = newTrackedSet([]string{"other"})
	if _, _, all, ok := w.scan(); !ok || !all {
		t.Fatal("a snapshot of another tracked set was used")
	}
}

// TestScanEveryPathChanged: when every tracked path is to be checked, git
// reads the whole tree (one pathspec, not each path).
func TestScanEveryPathChanged(t *testing.T) {
	repo := t.TempDir()
	write(t, filepath.Join(repo, "a"), "a\n")
	write(t, filepath.Join(repo, "b"), "b\n")
	m := &Manager{Root: t.TempDir(), Spares: 1}
	t.Cleanup(m.Wait)
	w := prepareSnapped(t, m, "every", "builder", repo)
	must(t, os.Remove(filepath.Join(w.Dir, "a")))
	if _, check, all, ok := w.scan(); !ok || all || !reflect.DeepEqual(check, []string{"a"}) {
		t.Fatalf("one deleted: %q, all %v", check, all)
	}
	must(t, os.Remove(filepath.Join(w.Dir, "b")))
	if _, check, all, ok := w.scan(); !ok || !all || check != nil {
		t.Fatalf("all deleted: %q, all %v", check, all)
	}
}

// TestSnapshotOfEveryCopy: a workspace copied for its Prepare and one
// taken from a ready copy both have the snapshot of their tracked paths;
// a base with a tracked .gitattributes gives neither one (and a ready
// copy of it still gives the workspace its tracked paths).
func TestSnapshotOfEveryCopy(t *testing.T) {
	ctx := context.Background()
	repo := fastPathRepo(t)
	attrs := fastPathRepo(t)
	write(t, filepath.Join(attrs, ".gitattributes"), "*.txt text\n")
	for _, spares := range []int{0, 1} {
		m := &Manager{Root: t.TempDir(), Spares: spares}
		t.Cleanup(m.Wait)
		needSnapshots(t, m.Root)
		for i := range 2 {
			m.Wait()
			w, err := m.Prepare(ctx, "every"+strconv.Itoa(i), 1, "builder", events.RepoRef{Path: repo})
			must(t, err)
			if w.snap == nil || w.snap.set != w.trackedSet || w.tracked == nil || len(w.snap.ids) != len(w.trackedSet.changing) {
				t.Fatalf("spares %d, workspace %d: snapshot %+v", spares, i, w.snap)
			}
			must(t, w.Close())
			m.Wait()
			a, err := m.Prepare(ctx, "attrs"+strconv.Itoa(i), 1, "builder", events.RepoRef{Path: attrs})
			must(t, err)
			if a.snap != nil || a.tracked == nil || !a.trackedAttributes {
				t.Fatalf("spares %d, workspace %d with .gitattributes: snapshot %+v, tracked %v", spares, i, a.snap, a.tracked != nil)
			}
			write(t, filepath.Join(a.Dir, "a.txt"), "edit\n")
			ch, err := a.Change(ctx)
			must(t, err)
			if ops(ch)["a.txt"] != "modify" {
				t.Fatalf("change %+v", ch)
			}
			must(t, a.Close())
		}
	}
}

// TestSnapshotMark: the paths whose change time is not before the
// marker's are racy; with settle, marking again once the clock moved on
// clears them, and a clock that does not move leaves them racy; a
// marker that cannot be written is no snapshot.
func TestSnapshotMark(t *testing.T) {
	clock := func(times ...int64) (func() (int64, error), *int) {
		calls := 0
		return func() (int64, error) {
			m := times[min(calls, len(times)-1)]
			calls++
			return m, nil
		}, &calls
	}
	s := &snapshot{ids: []fileID{{ctime: 10}, {ctime: 20}}}
	next, calls := clock(20, 21)
	if !s.mark(next, 0) || !reflect.DeepEqual(s.racy, []int{1}) || *calls != 1 {
		t.Fatalf("marked at 20: racy %v after %d marks", s.racy, *calls)
	}
	next, calls = clock(20, 21)
	if !s.mark(next, time.Minute) || len(s.racy) != 0 || *calls != 2 {
		t.Fatalf("settled: racy %v after %d marks", s.racy, *calls)
	}
	next, _ = clock(10)
	if !s.mark(next, 3*time.Millisecond) || !reflect.DeepEqual(s.racy, []int{0, 1}) {
		t.Fatalf("a clock that does not move: racy %v", s.racy)
	}
	if s.mark(func() (int64, error) { return 0, os.ErrPermission }, 0) {
		t.Fatal("a failed marker gave a snapshot")
	}
}
