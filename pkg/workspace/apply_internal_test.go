package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
)

// TestApplyChangeReportsEveryPathWritten: git apply can remove a file the
// patch never names in a "diff --git" header, or in what `git apply
// --numstat` prints (which only names a patch's new path): a rename under
// a header naming another file, or "--- a/<old>" differing from
// "+++ b/<new>". The applied change must still report that deletion and
// its lines, as the work tree shows them: also when the workspace was
// taken from a ready copy with a snapshot, and git reads only the paths
// the apply changed.
func TestApplyChangeReportsEveryPathWritten(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	write(t, filepath.Join(repo, "protected.txt"), "secret\nmore\n")
	write(t, filepath.Join(repo, "ok.txt"), "a\n")
	write(t, filepath.Join(repo, "other.txt"), "o\n")
	m := &Manager{Root: t.TempDir()}
	spared := &Manager{Root: t.TempDir(), Spares: 1}
	t.Cleanup(spared.Wait)
	for i, diff := range []string{
		"diff --git a/ok.txt b/ok.txt\nsimilarity index 100%\nrename from protected.txt\nrename to new.txt\n",
		"diff --git a/ok.txt b/ok.txt\n--- a/protected.txt\n+++ b/ok.txt\n@@ -1,2 +1,2 @@\n-secret\n+x\n more\n",
		"diff --git a/ok.txt b/ok.txt\nrename old protected.txt\nrename new new.txt\n",
	} {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			c, err := m.Prepare(ctx, "hide"+strconv.Itoa(i), 1, "critic", events.RepoRef{Path: repo})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = c.Close() }()
			checkHidden(t, c, diff)
		})
		t.Run(strconv.Itoa(i)+" snapshot", func(t *testing.T) {
			checkHidden(t, prepareSnapped(t, spared, "hide"+strconv.Itoa(i), "critic", repo), diff)
		})
	}
}

// checkHidden applies diff in c and checks that the removal of
// protected.txt, which the diff hides, is in the applied change.
func checkHidden(t *testing.T, c *Workspace, diff string) {
	t.Helper()
	ch, err := c.ApplyChange(context.Background(), diff)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(c.Dir, "protected.txt")); err == nil {
		t.Fatal("the patch did not remove protected.txt: the test proves nothing")
	}
	if op := ops(ch)["protected.txt"]; op != "delete" {
		t.Fatalf("protected.txt op %q in %+v", op, ch.Files)
	}
	if ch.Removed < 2 {
		t.Fatalf("removed %d lines, the deleted file had 2: %+v", ch.Removed, ch)
	}
}
