package workspace

import (
	"context"
	"errors"
	"os"
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

// TestGitReadsNothingOfTheHost: git runs with no system or user
// configuration and no system attributes file, so a host's
// /etc/gitconfig or /etc/gitattributes changes no work tree (and git's
// applies read a patch as the in-process apply does).
func TestGitReadsNothingOfTheHost(t *testing.T) {
	scratch := t.TempDir()
	fake := filepath.Join(scratch, "git")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nenv > \"$HOME/env\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := (gitRun{git: fake, scratch: scratch}).run(context.Background(), scratch, 64<<10, "status"); err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(filepath.Join(scratch, "env"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_ATTR_NOSYSTEM=1", "HOME=" + scratch, "XDG_CONFIG_HOME=" + scratch} {
		if !strings.Contains("\n"+string(env), "\n"+want+"\n") {
			t.Errorf("git runs without %s:\n%s", want, env)
		}
	}
}
