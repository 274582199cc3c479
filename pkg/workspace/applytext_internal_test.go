package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
)

// applyRepo is a repository with the kinds of files patches meet.
func applyRepo(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	write(t, filepath.Join(repo, "a.txt"), "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n")
	// What a traditional diff of a.txt names, not stripping a/ and b/.
	write(t, filepath.Join(repo, "b", "a.txt"), "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n")
	write(t, filepath.Join(repo, "crlf.txt"), "x\r\ny\r\n")
	write(t, filepath.Join(repo, "nonl.txt"), "no newline")
	write(t, filepath.Join(repo, "dir", "sub", "c.txt"), "c\n")
	write(t, filepath.Join(repo, "dir2", "only.txt"), "only\n")
	write(t, filepath.Join(repo, "bin", "run.sh"), "#!/bin/sh\necho hi\n")
	if err := os.Chmod(filepath.Join(repo, "bin", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	return repo
}

// TestApplyTextMatchesGit: a patch the builder's workspace makes is
// applied in this process exactly as git applies it (the same files,
// modes and bytes, the same applied change) when it is plain text, and
// left to git otherwise.
func TestApplyTextMatchesGit(t *testing.T) {
	repo := applyRepo(t)
	m := &Manager{Root: t.TempDir()}
	mustDo := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		inProc bool
		edit   func(t *testing.T, dir string)
	}{
		{"modify", true, func(t *testing.T, d string) {
			write(t, filepath.Join(d, "a.txt"), "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\neight\n")
		}},
		{"modify two hunks", true, func(t *testing.T, d string) {
			write(t, filepath.Join(d, "a.txt"), "zero\none\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\n")
		}},
		{"new file", true, func(t *testing.T, d string) { write(t, filepath.Join(d, "new.txt"), "new\n") }},
		{"new executable", true, func(t *testing.T, d string) {
			write(t, filepath.Join(d, "tool.sh"), "#!/bin/sh\n")
			mustDo(t, os.Chmod(filepath.Join(d, "tool.sh"), 0o755))
		}},
		{"new empty file", true, func(t *testing.T, d string) { write(t, filepath.Join(d, "empty"), "") }},
		{"new in new directories", true, func(t *testing.T, d string) { write(t, filepath.Join(d, "deep", "er", "f.txt"), "f\n") }},
		{"delete, the directory emptied", true, func(t *testing.T, d string) { mustDo(t, os.Remove(filepath.Join(d, "dir2", "only.txt"))) }},
		{"delete in a directory kept", true, func(t *testing.T, d string) {
			write(t, filepath.Join(d, "dir", "sub", "keep.txt"), "k\n")
			mustDo(t, os.Remove(filepath.Join(d, "dir", "sub", "c.txt")))
		}},
		{"crlf", true, func(t *testing.T, d string) { write(t, filepath.Join(d, "crlf.txt"), "x\r\nz\r\n") }},
		{"newline added at the end", true, func(t *testing.T, d string) { write(t, filepath.Join(d, "nonl.txt"), "no newline\n") }},
		{"newline removed at the end", true, func(t *testing.T, d string) {
			write(t, filepath.Join(d, "a.txt"), "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight")
		}},
		{"emptied", true, func(t *testing.T, d string) { write(t, filepath.Join(d, "a.txt"), "") }},
		{"executable modified", true, func(t *testing.T, d string) {
			mustDo(t, os.WriteFile(filepath.Join(d, "bin", "run.sh"), []byte("#!/bin/sh\necho bye\n"), 0o755))
		}},
		{"several", true, func(t *testing.T, d string) {
			write(t, filepath.Join(d, "a.txt"), "1\n")
			write(t, filepath.Join(d, "dir", "n.txt"), "n\n")
			mustDo(t, os.Remove(filepath.Join(d, "crlf.txt")))
		}},
		{"rename as a deletion and an addition", true, func(t *testing.T, d string) {
			mustDo(t, os.Rename(filepath.Join(d, "a.txt"), filepath.Join(d, "b.txt")))
		}},
		{"mode change", false, func(t *testing.T, d string) { mustDo(t, os.Chmod(filepath.Join(d, "a.txt"), 0o755)) }},
		{"binary", false, func(t *testing.T, d string) { write(t, filepath.Join(d, "b.bin"), "\x00\x01\x02") }},
		{"name with a space", false, func(t *testing.T, d string) { write(t, filepath.Join(d, "my file.txt"), "x\n") }},
		{"link", false, func(t *testing.T, d string) { mustDo(t, os.Symlink("a.txt", filepath.Join(d, "l"))) }},
		{"file replaced by a directory", false, func(t *testing.T, d string) {
			mustDo(t, os.Remove(filepath.Join(d, "nonl.txt")))
			write(t, filepath.Join(d, "nonl.txt", "in.txt"), "in\n")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			run := "run" + strings.NewReplacer(" ", "", ",", "").Replace(tc.name)
			b, err := m.Prepare(ctx, run, 1, "builder", events.RepoRef{Path: repo})
			mustDo(t, err)
			defer func() { _ = b.Close() }()
			tc.edit(t, b.Dir)
			made, err := b.Change(ctx)
			mustDo(t, err)
			if made.Diff == "" {
				t.Fatal("the edit made no diff")
			}
			here := prepareAs(t, m, repo, run, "critic")
			if _, ok := here.planText(made.Diff); ok != tc.inProc {
				t.Fatalf("applied in this process: %v, want %v; diff:\n%s", ok, tc.inProc, made.Diff)
			}
			git := prepareAs(t, m, repo, run, "verifier")
			git.byGit = true
			got, err := here.ApplyChange(ctx, made.Diff)
			mustDo(t, err)
			want, err := git.ApplyChange(ctx, made.Diff)
			mustDo(t, err)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("applied change\n%+v\ngit's\n%+v", got, want)
			}
			if g, w := treeOf(t, here.Dir), treeOf(t, git.Dir); !reflect.DeepEqual(g, w) {
				t.Fatalf("tree\n%v\ngit's\n%v", g, w)
			}
			// (The builder's tree keeps the directories a deletion empties.)
			if g, w := filesOf(treeOf(t, here.Dir)), filesOf(treeOf(t, b.Dir)); !reflect.DeepEqual(g, w) {
				t.Fatalf("files\n%v\nthe builder's\n%v", g, w)
			}
		})
	}
}

// TestApplyTextLeavesToGit: patches applyText does not take, with
// nothing written: git applies them or refuses them as before.
func TestApplyTextLeavesToGit(t *testing.T) {
	repo := applyRepo(t)
	outside := t.TempDir()
	write(t, filepath.Join(outside, "x.txt"), "one\n")
	m := &Manager{Root: t.TempDir()}
	for _, tc := range []struct {
		name, diff string
		setup      func(t *testing.T, dir string)
		applies    bool
	}{
		{name: "hunk at an offset", applies: true,
			diff: "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -2,3 +2,3 @@\n three\n-four\n+FOUR\n five\n"},
		{name: "content that differs",
			diff: "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-TWO\n+2\n"},
		{name: "traditional diff", applies: true,
			diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"},
		{name: "climbs out",
			diff: "diff --git a/../x.txt b/../x.txt\n--- a/../x.txt\n+++ b/../x.txt\n@@ -1 +1 @@\n-one\n+two\n"},
		{name: "into .git",
			diff: "diff --git a/.git/config b/.git/config\nnew file mode 100644\n--- /dev/null\n+++ b/.git/config\n@@ -0,0 +1 @@\n+x\n"},
		{name: "into .GIT",
			diff: "diff --git a/.GIT/hooks/x b/.GIT/hooks/x\nnew file mode 100755\n--- /dev/null\n+++ b/.GIT/hooks/x\n@@ -0,0 +1 @@\n+x\n"},
		{name: "through a link to a directory outside",
			setup: func(t *testing.T, d string) { mustLink(t, outside, filepath.Join(d, "out")) },
			diff:  "diff --git a/out/x.txt b/out/x.txt\n--- a/out/x.txt\n+++ b/out/x.txt\n@@ -1 +1 @@\n-one\n+two\n"},
		{name: "new file through a link to a directory outside",
			setup: func(t *testing.T, d string) { mustLink(t, outside, filepath.Join(d, "out")) },
			diff:  "diff --git a/out/y.txt b/out/y.txt\nnew file mode 100644\n--- /dev/null\n+++ b/out/y.txt\n@@ -0,0 +1 @@\n+y\n"},
		{name: "a link to a file outside",
			setup: func(t *testing.T, d string) { mustLink(t, filepath.Join(outside, "x.txt"), filepath.Join(d, "x.txt")) },
			diff:  "diff --git a/x.txt b/x.txt\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-one\n+two\n"},
		{name: "new file over a dangling link",
			setup: func(t *testing.T, d string) { mustLink(t, filepath.Join(outside, "z.txt"), filepath.Join(d, "z.txt")) },
			diff:  "diff --git a/z.txt b/z.txt\nnew file mode 100644\n--- /dev/null\n+++ b/z.txt\n@@ -0,0 +1 @@\n+z\n"},
		{name: "new file that exists",
			diff: "diff --git a/a.txt b/a.txt\nnew file mode 100644\n--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n"},
		{name: "the same file twice", applies: true,
			diff: "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+a\n" +
				"diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+b\n"},
		{name: "a file and a file under it",
			diff: "diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+a\n" +
				"diff --git a/n/m b/n/m\nnew file mode 100644\n--- /dev/null\n+++ b/n/m\n@@ -0,0 +1 @@\n+b\n"},
		{name: "a header naming another file", applies: true,
			diff: "diff --git a/crlf.txt b/crlf.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"},
		{name: "a link", applies: true,
			diff: "diff --git a/s b/s\nnew file mode 120000\n--- /dev/null\n+++ b/s\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n"},
		{name: "no hunk",
			diff: "diff --git a/a.txt b/a.txt\nindex 1234567..89abcde 100644\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			run := "left" + strings.NewReplacer(" ", "", ",", "", ".", "").Replace(tc.name)
			here := prepareAs(t, m, repo, run, "critic")
			git := prepareAs(t, m, repo, run, "verifier")
			git.byGit = true
			if tc.setup != nil {
				tc.setup(t, here.Dir)
				tc.setup(t, git.Dir)
			}
			if _, ok := here.planText(tc.diff); ok {
				t.Fatal("applied in this process")
			}
			before := treeOf(t, outside)
			_, err := here.ApplyChange(ctx, tc.diff)
			_, gitErr := git.ApplyChange(ctx, tc.diff)
			if (err == nil) != tc.applies || (gitErr == nil) != tc.applies {
				t.Fatalf("applied: %v, by git: %v; want applied %v", err, gitErr, tc.applies)
			}
			if err != nil && !errors.Is(err, ErrApply) {
				t.Fatalf("err = %v, want ErrApply", err)
			}
			if g, w := treeOf(t, here.Dir), treeOf(t, git.Dir); !reflect.DeepEqual(g, w) {
				t.Fatalf("tree\n%v\ngit's\n%v", g, w)
			}
			if after := treeOf(t, outside); !reflect.DeepEqual(before, after) {
				t.Fatalf("outside the workspace: %v, was %v", after, before)
			}
		})
	}
}

// TestApplyTextReplacesAFileItMayShare: a modified file is replaced, so
// a hard link to it elsewhere keeps its content (git does the same).
func TestApplyTextReplacesAFileItMayShare(t *testing.T) {
	repo := applyRepo(t)
	m := &Manager{Root: t.TempDir()}
	here := prepareAs(t, m, repo, "shared", "critic")
	other := filepath.Join(m.Root, "elsewhere.txt")
	if err := os.Link(filepath.Join(here.Dir, "nonl.txt"), other); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	diff := "diff --git a/nonl.txt b/nonl.txt\n--- a/nonl.txt\n+++ b/nonl.txt\n@@ -1 +1 @@\n-no newline\n\\ No newline at end of file\n+changed\n"
	if _, ok := here.planText(diff); !ok {
		t.Fatal("not applied in this process: the test proves nothing")
	}
	if _, err := here.ApplyChange(context.Background(), diff); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(here.Dir, "nonl.txt")); string(b) != "changed\n" {
		t.Fatalf("patched file %q", b)
	}
	if b, _ := os.ReadFile(other); string(b) != "no newline" {
		t.Fatalf("the linked file became %q", b)
	}
}

func prepareAs(t *testing.T, m *Manager, repo, run, role string) *Workspace {
	t.Helper()
	w, err := m.Prepare(context.Background(), run, 1, role, events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

func mustLink(t *testing.T, target, at string) {
	t.Helper()
	if err := os.Symlink(target, at); err != nil {
		t.Fatal(err)
	}
}

// treeOf maps every path under dir to its kind, permissions and content
// (a link's target).
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		case fi.IsDir():
			out[rel] = "dir " + fi.Mode().Perm().String()
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fi.Mode().Perm().String() + " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// filesOf is tree without its directories.
func filesOf(tree map[string]string) map[string]string {
	out := map[string]string{}
	for p, v := range tree {
		if !strings.HasPrefix(v, "dir ") {
			out[p] = v
		}
	}
	return out
}
