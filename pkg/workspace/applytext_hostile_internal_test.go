package workspace

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// TestApplyTextAsGit: patches a hostile builder or model may write, which
// go-gitdiff reads or places otherwise than git: each is applied (or
// refused) exactly as git applies it, whichever way it goes.
func TestApplyTextAsGit(t *testing.T) {
	repo := applyRepo(t)
	write(t, filepath.Join(repo, "ab.txt"), "a\nb\na\nb\na\nb\n")
	m := &Manager{Root: t.TempDir()}
	const mod = "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n"
	for i, tc := range []struct{ name, diff string }{
		// git matches a hunk without trailing context only at the end.
		{"no trailing context", mod + "@@ -1,2 +1,2 @@\n one\n-two\n+2\n"},
		{"no context", mod + "@@ -2 +2 @@\n-two\n+2\n"},
		{"insertion without context", mod + "@@ -1,0 +2 @@\n+x\n"},
		{"insertion without context at the end", mod + "@@ -8,0 +9 @@\n+x\n"},
		{"second hunk without trailing context", mod + "@@ -1,2 +1,2 @@\n-one\n+1\n two\n@@ -3,2 +3,2 @@\n three\n-four\n+4\n"},
		// git places a hunk where its new position says.
		{"new position elsewhere", "diff --git a/ab.txt b/ab.txt\n--- a/ab.txt\n+++ b/ab.txt\n@@ -3,3 +1,3 @@\n a\n-b\n+B\n a\n"},
		{"new file in two hunks", "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+n\n@@ -0,0 +2 @@\n+m\n"},
		// Only numbers git reads as numbers.
		{"signed position", mod + "@@ -+1,3 +1,3 @@\n one\n-two\n+2\n three\n"},
		{"signed count", mod + "@@ -1,+3 +1,3 @@\n one\n-two\n+2\n three\n"},
		// git's marker must be longer than 12 bytes at the end of a patch.
		{"short marker at the end", mod + "@@ -1,3 +1,3 @@\n one\n two\n-three\n+3\n\\ 123456789\n"},
		// Names as git reads them: no C-style escapes beyond git's, no
		// doubled slash git keeps, no name without its prefix.
		{"Go escape in a quoted name", mod[:len("diff --git a/a.txt b/a.txt\n")] + "--- \"a/a\\x2etxt\"\n+++ \"b/a\\x2etxt\"\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"},
		{"Unicode escape in a quoted name", mod[:len("diff --git a/a.txt b/a.txt\n")] + "--- \"a/a\\u002etxt\"\n+++ \"b/a\\u002etxt\"\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"},
		{"doubled slash", "diff --git a/a.txt b/a.txt\n--- a//a.txt\n+++ b//a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"},
		{"old name without prefix", "diff --git a/a.txt b/a.txt\n--- a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"},
		// A deletion of a file of another type.
		{"deletion of a link", "diff --git a/nonl.txt b/nonl.txt\ndeleted file mode 120000\n--- a/nonl.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-no newline\n\\ No newline at end of file\n"},
		{"deletion of a submodule", "diff --git a/nonl.txt b/nonl.txt\ndeleted file mode 160000\n--- a/nonl.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-no newline\n\\ No newline at end of file\n"},
		// Garbage git reads as a patch of its own.
		{"garbage after a hunk", mod + "@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n--- a\n+++ b\n@@ -\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := "asgit" + strconv.Itoa(i)
			here := prepareAs(t, m, repo, run, "critic")
			git := prepareAs(t, m, repo, run, "verifier")
			git.byGit = true
			sameAsGit(t, here, git, tc.diff)
		})
	}
}

// sameAsGit applies diff to here and (by git) to git and fails unless
// both succeed or fail alike with the same applied change and tree.
func sameAsGit(t *testing.T, here, git *Workspace, diffs ...string) {
	t.Helper()
	ctx := context.Background()
	for _, diff := range diffs {
		got, err := here.ApplyChange(ctx, diff)
		want, gitErr := git.ApplyChange(ctx, diff)
		if (err == nil) != (gitErr == nil) {
			t.Fatalf("applied: %v; by git: %v", err, gitErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("applied change\n%+v\ngit's\n%+v", got, want)
		}
	}
	if g, w := treeOf(t, here.Dir), treeOf(t, git.Dir); !reflect.DeepEqual(g, w) {
		t.Fatalf("tree\n%q\ngit's\n%q", g, w)
	}
}

// TestApplyTextAttributes: git converts what it reads and writes by the
// tree's .gitattributes (line ends, ident, encodings); a tree that has
// or may have one is left to git.
func TestApplyTextAttributes(t *testing.T) {
	repo := applyRepo(t)
	const crlf = "*.txt text eol=crlf\n"
	modify := "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
	attrs := "diff --git a/.gitattributes b/.gitattributes\nnew file mode 100644\n--- /dev/null\n+++ b/.gitattributes\n@@ -0,0 +1 @@\n+" + crlf
	m := &Manager{Root: t.TempDir()}
	both := func(t *testing.T, run string) (*Workspace, *Workspace) {
		here := prepareAs(t, m, repo, run, "critic")
		git := prepareAs(t, m, repo, run, "verifier")
		git.byGit = true
		return here, git
	}
	t.Run("a patch with one, then another", func(t *testing.T) {
		here, git := both(t, "attrpatch")
		sameAsGit(t, here, git, attrs, modify)
	})
	t.Run("one written by a command", func(t *testing.T) {
		here, git := both(t, "attrcommand")
		for _, w := range []*Workspace{here, git} {
			if _, err := w.Command(os.Getenv); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(w.Dir, ".gitattributes"), crlf)
		}
		sameAsGit(t, here, git, modify)
	})
	t.Run("one in the repository", func(t *testing.T) {
		sub := applyRepo(t)
		write(t, filepath.Join(sub, "dir", ".gitattributes"), "*.txt ident\n")
		write(t, filepath.Join(sub, "dir", "id.txt"), "$Id$\nx\n")
		here := prepareAs(t, m, sub, "attrrepo", "critic")
		git := prepareAs(t, m, sub, "attrrepo", "verifier")
		git.byGit = true
		sameAsGit(t, here, git, "diff --git a/dir/id.txt b/dir/id.txt\n--- a/dir/id.txt\n+++ b/dir/id.txt\n@@ -1,2 +1,2 @@\n $Id$\n-x\n+y\n")
	})
}

// TestApplyTextDeletesFirst: git removes every deleted file (and the
// directories left empty) before it writes any: a directory emptied and
// written again is made anew, as git makes it.
func TestApplyTextDeletesFirst(t *testing.T) {
	repo := applyRepo(t)
	m := &Manager{Root: t.TempDir()}
	here := prepareAs(t, m, repo, "order", "critic")
	git := prepareAs(t, m, repo, "order", "verifier")
	git.byGit = true
	for _, w := range []*Workspace{here, git} {
		if err := os.Chmod(filepath.Join(w.Dir, "dir2"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	diff := "diff --git a/dir2/new.txt b/dir2/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/dir2/new.txt\n@@ -0,0 +1 @@\n+new\n" +
		"diff --git a/dir2/only.txt b/dir2/only.txt\ndeleted file mode 100644\n--- a/dir2/only.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-only\n"
	if _, ok := here.planText(diff); !ok {
		t.Fatal("not applied in this process: the test proves nothing")
	}
	sameAsGit(t, here, git, diff)
}

// TestApplyTextBounds: a patch whose reading would hold more than a few
// MiB in this process (a large patch, a file of many lines), or a name no
// filesystem here takes, is left to git.
func TestApplyTextBounds(t *testing.T) {
	repo := applyRepo(t)
	write(t, filepath.Join(repo, "lines.txt"), strings.Repeat("\n", maxInProcessLines)+"x\n")
	m := &Manager{Root: t.TempDir()}
	here := prepareAs(t, m, repo, "bounds", "critic")
	long := strings.Repeat("n", 256)
	deep := strings.Repeat(strings.Repeat("d", 200)+"/", 21) + "f"
	for name, diff := range map[string]string{
		"large patch": "diff --git a/big.txt b/big.txt\nnew file mode 100644\n--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1," +
			strconv.Itoa(maxInProcessDiff/2) + " @@\n" + strings.Repeat("+\n", maxInProcessDiff/2),
		"many lines": "diff --git a/lines.txt b/lines.txt\n--- a/lines.txt\n+++ b/lines.txt\n@@ -" + strconv.Itoa(maxInProcessLines) + ",2 +" +
			strconv.Itoa(maxInProcessLines) + ",2 @@\n \n-x\n+y\n",
		"long name": "diff --git a/new/" + long + " b/new/" + long + "\nnew file mode 100644\n--- /dev/null\n+++ b/new/" + long + "\n@@ -0,0 +1 @@\n+x\n",
		"long line": "diff --git a/big.txt b/big.txt\nnew file mode 100644\n--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1 @@\n+" +
			strings.Repeat("x", maxInProcessDiff) + "\n",
		"long path":     "diff --git a/" + deep + " b/" + deep + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + deep + "\n@@ -0,0 +1 @@\n+x\n",
		"gitattributes": "diff --git a/d/.gitattributes b/d/.gitattributes\nnew file mode 100644\n--- /dev/null\n+++ b/d/.gitattributes\n@@ -0,0 +1 @@\n+x\n",
	} {
		if _, ok := here.planText(diff); ok {
			t.Errorf("%s: applied in this process", name)
		}
	}
	// Within the bounds, the same patches are applied here.
	if _, ok := here.planText("diff --git a/new/n b/new/n\nnew file mode 100644\n--- /dev/null\n+++ b/new/n\n@@ -0,0 +1 @@\n+x\n"); !ok {
		t.Error("a short name is not applied in this process")
	}
}

// TestSameReading: a file go-gitdiff reads otherwise than scanPatch (its
// path, kind, modes or hunks) is not applied in this process.
func TestSameReading(t *testing.T) {
	diff := "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
	scanned, ok := scanPatch(diff)
	if !ok {
		t.Fatal("not scanned")
	}
	for name, change := range map[string]func(f *gitdiff.File){
		"as read":       func(*gitdiff.File) {},
		"another path":  func(f *gitdiff.File) { f.NewName = "b.txt" },
		"added":         func(f *gitdiff.File) { f.IsNew = true },
		"deleted":       func(f *gitdiff.File) { f.IsDelete = true },
		"a mode change": func(f *gitdiff.File) { f.NewMode = 0o100755 },
		"a link":        func(f *gitdiff.File) { f.OldMode = 0o120000 },
		"no hunk":       func(f *gitdiff.File) { f.TextFragments = nil },
		"another range": func(f *gitdiff.File) { f.TextFragments[0].NewPosition = 2 },
	} {
		files, _, err := gitdiff.Parse(strings.NewReader(diff))
		if err != nil || len(files) != 1 {
			t.Fatal(files, err)
		}
		change(files[0])
		if got := sameReading(scanned[0], files[0]); got != (name == "as read") {
			t.Errorf("%s: same reading %v", name, got)
		}
	}
}
