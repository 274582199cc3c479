package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzApplyText: whatever a patch holds, applyText writes nothing when it
// leaves the patch to git, never writes outside the work tree, and a
// patch it applies, git applies to the same tree.
func FuzzApplyText(f *testing.F) {
	for _, seed := range []string{
		"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n",
		"diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+n\n",
		"diff --git a/x/y/z.sh b/x/y/z.sh\nnew file mode 100755\n--- /dev/null\n+++ b/x/y/z.sh\n@@ -0,0 +1 @@\n+z\n\\ No newline at end of file\n",
		"diff --git a/dir/b.txt b/dir/b.txt\ndeleted file mode 100644\n--- a/dir/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-b\n",
		"diff --git a/l/a.txt b/l/a.txt\n--- a/l/a.txt\n+++ b/l/a.txt\n@@ -1 +1 @@\n-one\n+1\n",
		"diff --git a/up/o.txt b/up/o.txt\nnew file mode 100644\n--- /dev/null\n+++ b/up/o.txt\n@@ -0,0 +1 @@\n+o\n",
		"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+1\n",
		// Hunks git places elsewhere than their old position says.
		"diff --git a/ab.txt b/ab.txt\n--- a/ab.txt\n+++ b/ab.txt\n@@ -3,3 +1,3 @@\n a\n-b\n+B\n a\n",
		"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n",
		"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,0 +2 @@\n+x\n",
		"diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+n\n@@ -0,0 +2 @@\n+m\n",
		// Lines git reads otherwise than go-gitdiff.
		"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -+1,3 +1,3 @@\n one\n-two\n+2\n three\n",
		"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n two\n-three\n+3\n\\ 123456789\n",
		"diff --git a/a.txt b/a.txt\n--- \"a/a\\x2etxt\"\n+++ \"b/a\\x2etxt\"\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n",
		"diff --git a/a.txt b/a.txt\n--- a//a.txt\n+++ b//a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n",
		"diff --git a/ab.txt b/ab.txt\ndeleted file mode 120000\n--- a/ab.txt\n+++ /dev/null\n@@ -1,6 +0,0 @@\n-a\n-b\n-a\n-b\n-a\n-b\n",
		// A deletion that empties a directory written again.
		"diff --git a/dir/n.txt b/dir/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/dir/n.txt\n@@ -0,0 +1 @@\n+n\n" +
			"diff --git a/dir/b.txt b/dir/b.txt\ndeleted file mode 100644\n--- a/dir/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-b\n",
	} {
		f.Add(seed)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		f.Skip("no git")
	}
	f.Fuzz(func(t *testing.T, diff string) {
		root := t.TempDir()
		outside := filepath.Join(root, "outside")
		here, there := filepath.Join(root, "here"), filepath.Join(root, "there")
		for _, d := range []string{here, there} {
			fuzzTree(t, d, outside)
		}
		fuzzTree(t, outside, outside)
		before, outBefore := treeOf(t, here), treeOf(t, outside)
		w := &Workspace{Dir: here}
		w.setTracked(newTrackedSet(fuzzTracked))
		_, ok, err := w.applyText(diff)
		if after := treeOf(t, outside); !reflect.DeepEqual(after, outBefore) {
			t.Fatalf("wrote outside the work tree: %v", after)
		}
		if !ok {
			if after := treeOf(t, here); !reflect.DeepEqual(after, before) {
				t.Fatalf("left to git, but wrote: %v", after)
			}
			return
		}
		if err != nil {
			t.Fatalf("taken, then failed: %v", err)
		}
		patch := filepath.Join(root, "p.diff")
		if err := os.WriteFile(patch, []byte(diff), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(git, "apply", "--whitespace=nowarn", "--binary", patch)
		cmd.Dir = there
		cmd.Env = []string{"GIT_CEILING_DIRECTORIES=" + root, "HOME=" + root}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("applied here, git refuses: %v: %s", err, out)
		}
		if g, w := treeOf(t, here), treeOf(t, there); !reflect.DeepEqual(g, w) {
			t.Fatalf("tree\n%v\ngit's\n%v", g, w)
		}
	})
}

// fuzzTracked are the paths of fuzzTree, tracked as a base lists them.
var fuzzTracked = []string{"a.txt", "ab.txt", "dir/b.txt", "exe.sh", "la.txt", "l", "up"}

// fuzzTree fills dir with a few files, a link to a file, one to a
// directory of the tree and one to outside.
func fuzzTree(t *testing.T, dir, outside string) {
	t.Helper()
	write(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n")
	write(t, filepath.Join(dir, "dir", "b.txt"), "b\n")
	write(t, filepath.Join(dir, "ab.txt"), "a\nb\na\nb\na\nb\n")
	write(t, filepath.Join(dir, "exe.sh"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(dir, "exe.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if dir == outside {
		return
	}
	mustLink(t, "a.txt", filepath.Join(dir, "la.txt"))
	mustLink(t, ".", filepath.Join(dir, "l"))
	mustLink(t, outside, filepath.Join(dir, "up"))
}
