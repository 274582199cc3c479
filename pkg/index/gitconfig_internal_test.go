package index

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitRepo makes a committed repository in a new directory, with the given
// local configuration and files.
func gitRepo(t *testing.T, config [][2]string, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", ".")
	for rel, content := range files {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", "-A")
	git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "x")
	for _, kv := range config {
		git("config", "--local", kv[0], kv[1])
	}
	return dir
}

// A hostile repository's own configuration runs nothing when its state is
// taken: a repository whose configuration could make git run a program
// (an fsmonitor, a filter driver) is hashed by content instead; a plain
// one still gets its git state.
func TestRepoStateRunsNoRepositoryProgram(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	plain := gitRepo(t, [][2]string{{"remote.origin.url", "https://example.com/x.git"}}, map[string]string{"a.txt": "a\n"})
	if s, err := RepoState(ctx, plain, 1<<20); err != nil || !strings.HasPrefix(s, "git:") {
		t.Fatalf("plain repository: %q %v", s, err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	cmd := "touch " + marker + "; cat"
	for name, tc := range map[string]struct {
		config [][2]string
		files  map[string]string
	}{
		"fsmonitor": {[][2]string{{"core.fsmonitor", cmd}}, map[string]string{"a.txt": "a\n"}},
		"filter": {[][2]string{{"filter.evil.clean", cmd}, {"filter.evil.smudge", "cat"}},
			map[string]string{"a.txt": "a\n", ".gitattributes": "* filter=evil\n"}},
		"include": {[][2]string{{"include.path", "/dev/null"}}, map[string]string{"a.txt": "a\n"}},
	} {
		dir := gitRepo(t, tc.config, tc.files)
		// New stat data make git read the file again (through any filter).
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(filepath.Join(dir, "a.txt"), later, later); err != nil {
			t.Fatal(err)
		}
		_ = os.Remove(marker)
		s, err := RepoState(ctx, dir, 1<<20)
		if err != nil || !strings.HasPrefix(s, "sha:") {
			t.Errorf("%s: state %q %v, want the content hash", name, s, err)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("%s: the repository's configured program ran", name)
		}
	}
}

func TestSafeGitConfig(t *testing.T) {
	for list, want := range map[string]bool{
		"": true,
		"core.repositoryformatversion=0\ncore.filemode=true\ncore.bare=false\ncore.logallrefupdates=true\n":                                                    true,
		"remote.origin.url=https://x\nremote.origin.fetch=+refs/heads/*:refs/remotes/origin/*\nbranch.main.remote=origin\nbranch.main.merge=refs/heads/main\n": true,
		"core.fsmonitor=sh -c x":                      false,
		"CORE.FSMONITOR=x":                            false,
		"filter.lfs.clean=git-lfs clean -- %f":        false,
		"include.path=../x":                           false,
		"includeif.gitdir:/x/.path=y":                 false,
		"core.worktree=/elsewhere":                    false,
		"remote.origin.uploadpack=evil":               false,
		"user.name=a\nthe rest of a multi-line value": false,
		"diff.external=x":                             false,
	} {
		if got := safeGitConfig(list); got != want {
			t.Errorf("%q: safe %v, want %v", list, got, want)
		}
	}
}
