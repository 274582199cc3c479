package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/workspace"
)

// ChangeWith hands on .context/scratchpad and .context/history (and
// nothing else of .context), and the result applies in another workspace.
func TestChangeWithContextPaths(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{"a.txt": "one\n", ".context/history/2026-01-01.jsonl": "{\"id\":\"old\"}\n"})
	m := &workspace.Manager{Root: t.TempDir()}
	b, err := m.Prepare(ctx, "run1", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	writeFiles(t, b.Dir, map[string]string{"a.txt": "two\n", ".context/scratchpad/state.json": "{}\n",
		".context/history/2026-01-01.jsonl": "{\"id\":\"old\"}\n{\"id\":\"new\"}\n", ".context/memory/fears.json": "[]\n", ".context/other.json": "{}\n"})
	plain, err := b.Change(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.Diff, ".context") || len(plain.Files) != 1 {
		t.Fatalf("Change leaked .context: %+v", plain.Files)
	}
	ch, err := b.ChangeWith(ctx, workspace.ContextChangePaths...)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{}
	for _, f := range ch.Files {
		paths[f.Path] = f.Op
	}
	if len(paths) != 3 || paths["a.txt"] != "modify" || paths[".context/scratchpad/state.json"] != "add" || paths[".context/history/2026-01-01.jsonl"] != "modify" {
		t.Fatalf("files %v", paths)
	}
	if ch.Added != 3 || ch.Removed != 1 || strings.Contains(ch.Diff, "memory/fears.json") || strings.Contains(ch.Diff, "other.json") {
		t.Fatalf("change +%d -%d\n%s", ch.Added, ch.Removed, ch.Diff)
	}
	c, err := m.Prepare(ctx, "run1", 1, "critic", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	if err := c.Apply(ctx, ch.Diff); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(c.Dir, ".context", "history", "2026-01-01.jsonl"))
	if string(got) != "{\"id\":\"old\"}\n{\"id\":\"new\"}\n" {
		t.Fatalf("applied history %q", got)
	}
}
