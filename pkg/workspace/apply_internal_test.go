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
// its lines, as the work tree shows them.
func TestApplyChangeReportsEveryPathWritten(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	write(t, filepath.Join(repo, "protected.txt"), "secret\nmore\n")
	write(t, filepath.Join(repo, "ok.txt"), "a\n")
	m := &Manager{Root: t.TempDir()}
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
			ch, err := c.ApplyChange(ctx, diff)
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
		})
	}
}
