package workspace_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/workspace"
)

func TestCheckRepo(t *testing.T) {
	roots, outside := t.TempDir(), t.TempDir()
	inside := filepath.Join(roots, "repo")
	if err := os.MkdirAll(inside, 0o755); err != nil {
		t.Fatal(err)
	}
	restricted := &workspace.Manager{AllowedRoots: []string{roots}, AllowedHosts: []string{"github.com", "*.corp.example"}}
	rootsOnly := &workspace.Manager{AllowedRoots: []string{roots}}
	open := &workspace.Manager{}
	cases := []struct {
		repo                      events.RepoRef
		restricted, roots, anyone bool // allowed?
	}{
		{events.RepoRef{Path: inside}, true, true, true},
		{events.RepoRef{Path: outside}, false, false, true},
		{events.RepoRef{URL: "file://" + inside}, true, true, true},
		{events.RepoRef{URL: "file://" + outside}, false, false, true},
		{events.RepoRef{URL: "FILE://" + outside}, false, false, true},
		{events.RepoRef{URL: "file://localhost" + outside}, false, false, true},
		{events.RepoRef{URL: outside}, false, false, true},
		{events.RepoRef{URL: "relative/repo"}, false, false, true},
		{events.RepoRef{URL: "https://github.com/acme/x.git"}, true, true, true},
		{events.RepoRef{URL: "https://GitHub.com:443/acme/x.git"}, true, true, true},
		{events.RepoRef{URL: "https://evil.example/x.git"}, false, true, true},
		{events.RepoRef{URL: "ssh://git@src.corp.example/x.git"}, true, true, true},
		{events.RepoRef{URL: "git@github.com:acme/x.git"}, true, true, true},
		{events.RepoRef{URL: "git@evil.example:acme/x.git"}, false, true, true},
		{events.RepoRef{URL: "https://corp.example.evil/x.git"}, false, true, true},
		{events.RepoRef{URL: "ext::sh -c id"}, false, false, false},
		{events.RepoRef{URL: "fd::3"}, false, false, false},
		{events.RepoRef{URL: "ftp://github.com/x.git"}, false, false, false},
		{events.RepoRef{URL: "file://evil.example/x"}, false, false, false},
	}
	for _, tc := range cases {
		for _, m := range []struct {
			name string
			m    *workspace.Manager
			want bool
		}{{"roots and hosts", restricted, tc.restricted}, {"roots", rootsOnly, tc.roots}, {"no limits", open, tc.anyone}} {
			err := m.m.CheckRepo(tc.repo)
			if (err == nil) != m.want {
				t.Errorf("%s with %s: err = %v, want allowed %v", tc.repo.String(), m.name, err, m.want)
			}
			if err != nil && !errors.Is(err, workspace.ErrNotAllowed) && !errors.Is(err, workspace.ErrRepo) {
				t.Errorf("%s: %v does not wrap ErrNotAllowed or ErrRepo", tc.repo.String(), err)
			}
		}
	}
}

// TestFileURLsHonourTheRoots: a file:// URL outside the roots is refused
// before git runs; one inside is cloned.
func TestFileURLsHonourTheRoots(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	roots := t.TempDir()
	inside, outside := filepath.Join(roots, "repo"), t.TempDir()
	for _, dir := range []string{inside, outside} {
		writeFiles(t, dir, map[string]string{"f.txt": "x\n"})
		for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-qm", "init"}} {
			cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v %s", args, err, out)
			}
		}
	}
	m := &workspace.Manager{Root: t.TempDir(), AllowedRoots: []string{roots}}
	ctx := context.Background()
	if _, err := m.Prepare(ctx, "r", 1, "librarian", events.RepoRef{URL: "file://" + outside}); !errors.Is(err, workspace.ErrNotAllowed) {
		t.Fatalf("file URL outside the roots: %v", err)
	}
	if _, err := m.Prepare(ctx, "r", 1, "librarian", events.RepoRef{URL: outside}); !errors.Is(err, workspace.ErrNotAllowed) {
		t.Fatalf("plain path URL outside the roots: %v", err)
	}
	w, err := m.Prepare(ctx, "r", 1, "librarian", events.RepoRef{URL: "file://" + inside})
	if err != nil {
		t.Fatalf("file URL inside the roots: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.Dir, "f.txt")); err != nil {
		t.Fatal(err)
	}
}
