package workspace_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/workspace"
)

// gitRepo makes a git repository in dir with one commit on branch main and
// returns a function running git in it.
func gitRepo(t *testing.T, dir string, files map[string]string) func(args ...string) string {
	t.Helper()
	writeFiles(t, dir, files)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "first")
	return git
}

// A `.git` file pointing to a directory whose config sets core.fsmonitor
// must not run that command while the workspace is prepared or its change
// taken.
func TestGitFileFsmonitorDoesNotRun(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	marker := filepath.Join(t.TempDir(), "pwned")
	hook := "#!/bin/sh\necho ran > " + marker + "\n"
	writeFiles(t, repo, map[string]string{
		"main.go":      "package main\n",
		".git":         "gitdir: evil\n",
		"evil/HEAD":    "ref: refs/heads/main\n",
		"evil/config":  "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = ./evil/hook.sh\n",
		"evil/hook.sh": hook,
	})
	if err := os.MkdirAll(filepath.Join(repo, "evil", "objects"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "evil", "refs", "heads"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(repo, "evil", "hook.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := &workspace.Manager{Root: t.TempDir()}
	w, err := m.Prepare(ctx, "run1", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, w.Dir, map[string]string{"main.go": "package main // changed\n"})
	if _, err := w.Change(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the repository's core.fsmonitor command ran")
	}
	if _, err := os.Lstat(filepath.Join(w.Dir, ".git")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a .git entry is in the work tree: %v", err)
	}
}

// `gitdir: /abs/other/.git` must not move another repository's branch.
func TestGitFileToOtherRepoLeavesItAlone(t *testing.T) {
	ctx := context.Background()
	other := t.TempDir()
	otherGit := gitRepo(t, other, map[string]string{"x.txt": "x\n"})
	before := otherGit("rev-parse", "main")
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{"a.txt": "a\n", ".git": "gitdir: " + filepath.Join(other, ".git") + "\n"})
	m := &workspace.Manager{Root: t.TempDir()}
	w, err := m.Prepare(ctx, "run1", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, w.Dir, map[string]string{"a.txt": "b\n"})
	ch, err := w.Change(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Files) != 1 || ch.Files[0].Path != "a.txt" {
		t.Fatalf("change %+v", ch.Files)
	}
	if after := otherGit("rev-parse", "main"); after != before {
		t.Fatalf("the other repository's branch moved: %s -> %s", before, after)
	}
	if st := otherGit("status", "--porcelain"); st != "" {
		t.Fatalf("the other repository's index changed:\n%s", st)
	}
}

// A git worktree used as repo.path keeps its branch.
func TestWorktreeAsRepoPathKeepsBranch(t *testing.T) {
	ctx := context.Background()
	main := t.TempDir()
	git := gitRepo(t, main, map[string]string{"f.txt": "1\n"})
	wt := filepath.Join(t.TempDir(), "wt")
	git("worktree", "add", "-q", "-b", "feature", wt)
	before := git("rev-parse", "feature")
	m := &workspace.Manager{Root: t.TempDir()}
	w, err := m.Prepare(ctx, "run1", 1, "builder", events.RepoRef{Path: wt})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, w.Dir, map[string]string{"f.txt": "2\n"})
	if _, err := w.Change(ctx); err != nil {
		t.Fatal(err)
	}
	if after := git("rev-parse", "feature"); after != before {
		t.Fatalf("the worktree's branch moved: %s -> %s", before, after)
	}
	if log := git("log", "--format=%s", "feature"); strings.Contains(log, "codali") {
		t.Fatalf("a codali commit landed on the worktree's branch:\n%s", log)
	}
}

// No variant of .git is copied: case, invisible characters, trailing dots,
// files, directories and symlinks.
func TestGitVariantsNotCopied(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	names := []string{".GIT", ".Git", ".git\u200c", "\u200d.git", ".git\ufeff", ".git.", ".git ", "GIT~1", "sub/.git", "sub/.GIT"}
	files := map[string]string{"keep.txt": "k\n"}
	for _, n := range names {
		files[n+"/config"] = "[core]\n\tfsmonitor = evil\n"
	}
	writeFiles(t, repo, files)
	if err := os.WriteFile(filepath.Join(repo, "sub", "x.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub/.GIT", filepath.Join(repo, ".git")); err != nil {
		t.Fatal(err)
	}
	m := &workspace.Manager{Root: t.TempDir()}
	w, err := m.Prepare(ctx, "run1", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range append(names, ".git") {
		if _, err := os.Lstat(filepath.Join(w.Dir, n)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%q was copied (%v)", n, err)
		}
	}
	for _, keep := range []string{"keep.txt", "sub/x.txt"} {
		if _, err := os.Stat(filepath.Join(w.Dir, keep)); err != nil {
			t.Errorf("%s not copied: %v", keep, err)
		}
	}
	for _, n := range names {
		if !workspace.IsGitName(filepath.Base(n)) {
			t.Errorf("IsGitName(%q) = false", n)
		}
	}
	for _, n := range []string{".github", "git", ".gitignore", ".gitattributes", "x.git"} {
		if workspace.IsGitName(n) {
			t.Errorf("IsGitName(%q) = true", n)
		}
	}
}

// Symlinks that leave the tree are not copied, so `gofmt -w ext/` cannot
// rewrite files outside; links inside are kept.
func TestEscapingSymlinksNotCopied(t *testing.T) {
	ctx := context.Background()
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"victim.go": "package   victim\n"})
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{"src/a.go": "package a\n"})
	for name, target := range map[string]string{
		"ext":      outside,
		"rel":      "../" + filepath.Base(outside),
		"file.go":  filepath.Join(outside, "victim.go"),
		"inside":   "src",
		"src/up":   "../src/a.go",
		"src/deep": "../../../../../../../../../../etc",
	} {
		if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
			t.Fatal(err)
		}
	}
	m := &workspace.Manager{Root: t.TempDir()}
	w, err := m.Prepare(ctx, "run1", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"ext", "rel", "file.go", "src/deep"} {
		if _, err := os.Lstat(filepath.Join(w.Dir, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("escaping symlink %s was copied (%v)", gone, err)
		}
	}
	for _, kept := range []string{"inside/a.go", "src/up"} {
		if _, err := os.Stat(filepath.Join(w.Dir, kept)); err != nil {
			t.Errorf("inner symlink %s not kept: %v", kept, err)
		}
	}
	if out, err := exec.Command("gofmt", "-w", w.Dir).CombinedOutput(); err != nil {
		t.Fatalf("gofmt: %v %s", err, out)
	}
	got, _ := os.ReadFile(filepath.Join(outside, "victim.go"))
	if string(got) != "package   victim\n" {
		t.Fatalf("a file outside the repository was rewritten: %q", got)
	}
}

// Copy limits fail with a typed error instead of filling the disk.
func TestCopyLimits(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{"a.txt": strings.Repeat("a", 100), "b.txt": "b", "c/d.txt": "d"})
	for name, m := range map[string]*workspace.Manager{
		"files":    {Root: t.TempDir(), Limits: workspace.Limits{MaxFiles: 2}},
		"bytes":    {Root: t.TempDir(), Limits: workspace.Limits{MaxBytes: 50}},
		"per file": {Root: t.TempDir(), Limits: workspace.Limits{MaxFileBytes: 99}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := m.Prepare(ctx, "run1", 1, "builder", events.RepoRef{Path: repo})
			if !errors.Is(err, workspace.ErrTooLarge) || !errors.Is(err, workspace.ErrRepo) {
				t.Fatalf("err = %v, want ErrTooLarge", err)
			}
			if entries, _ := os.ReadDir(filepath.Join(m.Root, "run1", "1")); len(entries) != 0 {
				t.Fatalf("a partial workspace was left: %v", entries)
			}
		})
	}
	m := &workspace.Manager{Root: t.TempDir(), Limits: workspace.Limits{MaxFiles: 4, MaxBytes: 102, MaxFileBytes: 100}} // 3 files and a directory
	if _, err := m.Prepare(ctx, "run1", 1, "builder", events.RepoRef{Path: repo}); err != nil {
		t.Fatalf("at the limits: %v", err)
	}
}

// A change larger than the diff limit fails loudly; nothing is cut.
func TestDiffOverLimitFails(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{"a.txt": "a\n"})
	m := &workspace.Manager{Root: t.TempDir(), Limits: workspace.Limits{MaxDiffBytes: 4096}}
	w, err := m.Prepare(ctx, "run1", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, w.Dir, map[string]string{"a.txt": strings.Repeat("line of text\n", 1000)})
	if _, err := w.Change(ctx); !errors.Is(err, workspace.ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	// The default limit takes a diff far above the old 64 KiB cut whole.
	m.Limits = workspace.Limits{}
	w, err = m.Prepare(ctx, "run1", 2, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("0123456789abcdef0123456789abcdef\n", 8000) // 264 KB
	writeFiles(t, w.Dir, map[string]string{"a.txt": big})
	ch, err := w.Change(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ch.Diff, "diff --git a/a.txt b/a.txt") || ch.Added != 8000 {
		t.Fatalf("diff cut: starts %q, added %d", ch.Diff[:min(len(ch.Diff), 40)], ch.Added)
	}
	c, err := m.Prepare(ctx, "run1", 2, "critic", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(ctx, ch.Diff); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(c.Dir, "a.txt")); string(got) != big {
		t.Fatal("the applied change differs from the one taken")
	}
}
