package workspace

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
)

// TestCloneProtocols: git may use the file transport only for a local
// repository; a remote URL is cloned with file (and ext, and every remote
// helper) refused by git itself.
func TestCloneProtocols(t *testing.T) {
	for url, file := range map[string]bool{
		"https://github.com/a/b.git": false,
		"git@github.com:a/b.git":     false,
		"file:///srv/repos/a":        true,
		"/srv/repos/a":               true,
	} {
		got := cloneProtocols(events.RepoRef{URL: url})
		if strings.Contains(got, "file") != file || strings.Contains(got, "ext") {
			t.Errorf("%s: GIT_ALLOW_PROTOCOL=%s", url, got)
		}
	}
	if got := (gitRun{}).allowedProtocols(); strings.Contains(got, "file") {
		t.Errorf("a git process without a clone's list allows %s", got)
	}
}

// TestGitRefusesFileTransportForRemoteClones: the protocol list reaches
// git: a workspace whose clone may only use the remote transports cannot
// read a local repository, even if the URL check were bypassed.
func TestGitRefusesFileTransportForRemoteClones(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	src := t.TempDir()
	cmd := exec.Command("git", "-c", "init.defaultBranch=main", "init", "-q")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	scratch := t.TempDir()
	g := gitRun{git: "git", scratch: scratch, protocols: remoteProtocols}
	_, err := g.run(context.Background(), scratch, 64<<10, "clone", "--quiet", "--", "file://"+src, filepath.Join(scratch, "work"))
	if !errors.Is(err, ErrGit) || !strings.Contains(err.Error(), "not allowed") {
		t.Fatalf("clone over file with file refused: %v", err)
	}
}
