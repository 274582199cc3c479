package changegate_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/changegate"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/redact"
	"github.com/codali-dev/codali/pkg/workspace"
)

// TestHiddenLinksInTheAppliedChangeAreBlocked: git apply makes a link
// from spellings the diff's own reading does not take for one (a mode
// with a leading zero or trailing space, a binary patch of the target);
// the critic's gate judges the link the work tree then holds.
func TestHiddenLinksInTheAppliedChangeAreBlocked(t *testing.T) {
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &workspace.Manager{Root: t.TempDir()}
	p := policy.Default()
	text := "--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n"
	for i, diff := range []string{
		"diff --git a/l b/l\nnew file mode 0120000\n" + text,
		"diff --git a/l b/l\nnew file mode 120000 \n" + text,
		"diff --git a/l b/l\nnew file mode 120000\nindex 0000000000000000000000000000000000000000..3594e94c04db171e2767224db355f514b13715c5\n" +
			"GIT binary patch\nliteral 11\nScmdN-ElJidNGvWcPXPcIa|A5_\n\nliteral 0\nHcmV?d00001\n\n",
	} {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			ctx := context.Background()
			w, err := m.Prepare(ctx, "links"+strconv.Itoa(i), 1, "critic", events.RepoRef{Path: repo})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = w.Close() }()
			applied, err := w.ApplyChange(ctx, diff)
			if err != nil {
				t.Fatal(err)
			}
			if target, err := os.Readlink(filepath.Join(w.Dir, "l")); err != nil || target != "/etc/passwd" {
				t.Fatalf("the patch made no link (%q, %v): the test proves nothing", target, err)
			}
			v := strings.Join(changegate.Violations(changegate.CheckDiff(p, p.Hash(), &redact.Redactor{}, applied, diff)), "; ")
			if !strings.Contains(v, "symbolic link l") || !strings.Contains(v, "absolute") {
				t.Fatalf("violations %q, want the link refused", v)
			}
		})
	}
}

// TestCopiedBinaryCountsAgainstTheLineLimit: a patch that copies a
// tracked binary file says nothing of its size; the applied change's own
// patch holds it, and it counts against max_changed_lines.
func TestCopiedBinaryCountsAgainstTheLineLimit(t *testing.T) {
	repo := t.TempDir()
	big := make([]byte, 64<<10)
	for i := range big {
		big[i] = byte(i * 7 % 251)
	}
	if err := os.WriteFile(filepath.Join(repo, "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	m := &workspace.Manager{Root: t.TempDir()}
	ctx := context.Background()
	w, err := m.Prepare(ctx, "copy", 1, "critic", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Close() }()
	diff := "diff --git a/c.bin b/c.bin\nsimilarity index 100%\ncopy from big.bin\ncopy to c.bin\n"
	applied, err := w.ApplyChange(ctx, diff)
	if err != nil {
		t.Fatal(err)
	}
	p := policy.Default()
	p.MaxChangedLines = 50
	v := strings.Join(changegate.Violations(changegate.CheckDiff(p, p.Hash(), &redact.Redactor{}, applied, diff)), "; ")
	if !strings.Contains(v, "max changed lines exceeded") {
		t.Fatalf("violations %q, want the line limit", v)
	}
}
