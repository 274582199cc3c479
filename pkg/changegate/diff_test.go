package changegate_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/changegate"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/workspace"
)

// TestFromDiffAgreesWithGit: for a real change (added, modified, deleted,
// binary, odd names, removed lines that look like headers), the diff read
// on its own gives the files and counts git reports.
func TestFromDiffAgreesWithGit(t *testing.T) {
	repo := t.TempDir()
	for name, body := range map[string]string{"a.txt": "one\n-- two\n--- three\nfour\n", "gone.txt": "x\ny\n", "bin.dat": "\x00\x01"} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := &workspace.Manager{Root: t.TempDir()}
	ws, err := m.Prepare(context.Background(), "r", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	for name, body := range map[string]string{
		"a.txt": "one\nfour\n+++ five\n", "new dir/sp ace.txt": "s\n", "ünï.txt": "u\n", ".git\u200b/config": "c\n",
		"bin.dat": "\x00\x02\x03", "empty.txt": "",
	} {
		p := filepath.Join(ws.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(ws.Dir, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	want, err := ws.Change(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := changegate.FromDiff(want.Diff)
	if err != nil {
		t.Fatal(err)
	}
	sortFiles := func(f []events.FileChange) []events.FileChange {
		f = slices.Clone(f)
		slices.SortFunc(f, func(a, b events.FileChange) int { return strings.Compare(a.Path, b.Path) })
		return f
	}
	// git counts bin.dat as 0 lines; the gate counts its binary patch's
	// two literals (the new and the old data) as one line each.
	const binaryLines = 2
	if !slices.Equal(sortFiles(got.Files), sortFiles(want.Files)) || got.Added != want.Added+binaryLines || got.Removed != want.Removed {
		t.Fatalf("FromDiff = %+v +%d -%d\ngit      = %+v +%d -%d\n%s", got.Files, got.Added, got.Removed, want.Files, want.Added, want.Removed, want.Diff)
	}
}

func TestFromDiffRejectsMalformed(t *testing.T) {
	for _, d := range []string{
		"diff --git a/x b/y\n",
		"diff --git a/x b/x\n@@ -1,2 +1,2 @@\n x\n",
		"diff --git a/x b/x\n@@ -1,a +1 @@\n",
		"diff --git \"a/x b/x\n",
		"diff --git a/x b/x\n@@ -1 +1 @@\n?x\n",
	} {
		if _, err := changegate.FromDiff(d); err == nil {
			t.Errorf("FromDiff(%q) accepted", d)
		}
	}
}

// TestMergeHidesNothing: a list cut short on one side is completed by the
// other, and the larger count wins.
func TestMergeHidesNothing(t *testing.T) {
	a := events.Change{Files: []events.FileChange{{Path: "x", Op: "modify"}, {Path: "secrets/t", Op: "add"}}, Added: 5000}
	b := events.Change{Files: []events.FileChange{{Path: "x", Op: "delete"}}, Added: 3, Removed: 9}
	m := changegate.Merge(a, b)
	if len(m.Files) != 2 || m.Files[0].Op != "delete" || m.Added != 5000 || m.Removed != 9 {
		t.Fatalf("Merge = %+v", m)
	}
}
