package index

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestMayBeInGitWorkTree: a directory with a .git entry, or below one, or
// any directory while GIT_DIR is set, may be in a work tree; otherwise
// git itself agrees there is none.
func TestMayBeInGitWorkTree(t *testing.T) {
	plain := t.TempDir()
	sub := filepath.Join(plain, "repo", "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if !mayBeInGitWorkTree(plain) {
		// No .git anywhere above: git must find no work tree either.
		if _, err := exec.LookPath("git"); err == nil {
			cmd := exec.Command("git", "-C", plain, "rev-parse", "--show-toplevel")
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
			if out, err := cmd.Output(); err == nil {
				t.Fatalf("git finds a work tree (%s) where no .git was found", out)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(plain, "repo", ".git"), []byte("gitdir: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(plain, "repo"), sub} {
		if !mayBeInGitWorkTree(d) {
			t.Errorf("%s: a .git entry above was not seen", d)
		}
	}
	t.Setenv("GIT_DIR", filepath.Join(plain, "elsewhere"))
	if !mayBeInGitWorkTree(t.TempDir()) {
		t.Error("GIT_DIR set, yet no work tree possible")
	}
}
