package workspace_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/workspace"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestResolveRejectsEscapes(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	writeFiles(t, root, map[string]string{"src/a.go": "package a"})
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "nope"), filepath.Join(root, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src", filepath.Join(root, "inlink")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path string
		ok         bool
	}{
		{"plain", "src/a.go", true},
		{"new file", "src/new/b.go", true},
		{"dot segments inside", "src/../src/a.go", true},
		{"backslashes", `src\a.go`, true},
		{"link inside", "inlink/a.go", true},
		{"absolute", "/etc/passwd", false},
		{"parent", "../x", false},
		{"sneaky parent", "src/../../x", false},
		{"empty", "", false},
		{"nul", "a\x00b", false},
		{"symlink out", "out/secret", false},
		{"dangling symlink out", "dangling", false},
		{"git dir", ".git/config", false},
		{"git dir upper case", ".GIT/config", false},
		{"git dir invisible char", ".git\u200c/config", false},
		{"nested git dir", "sub/.Git/HEAD", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := workspace.Resolve(root, tc.path)
			if tc.ok {
				real, _ := filepath.EvalSymlinks(root)
				if err != nil || !strings.HasPrefix(p, real) {
					t.Fatalf("Resolve(%q) = %q, %v", tc.path, p, err)
				}
				return
			}
			if !errors.Is(err, workspace.ErrPathEscapes) {
				t.Fatalf("Resolve(%q) = %q, %v; want ErrPathEscapes", tc.path, p, err)
			}
		})
	}
}

func TestPrepareChangeApplyRoundTrip(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{"a.txt": "one\ntwo\n", "gone.txt": "bye\n", ".git/HEAD": "junk"})
	m := &workspace.Manager{Root: t.TempDir()}
	b, err := m.Prepare(ctx, "run1", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, b.Dir, map[string]string{"a.txt": "one\n2\n", "new/b.txt": "hi\n", ".context/state.json": "{}"})
	if err := os.Remove(filepath.Join(b.Dir, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	ch, err := b.Change(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Added != 2 || ch.Removed != 2 || len(ch.Files) != 3 {
		t.Fatalf("change %+v", ch)
	}
	if strings.Contains(ch.Diff, ".context") {
		t.Fatalf(".context leaked into the change:\n%s", ch.Diff)
	}
	ops := map[string]string{}
	for _, f := range ch.Files {
		ops[f.Path] = f.Op
	}
	if ops["a.txt"] != "modify" || ops["new/b.txt"] != "add" || ops["gone.txt"] != "delete" {
		t.Fatalf("ops %v", ops)
	}
	c, err := m.Prepare(ctx, "run1", 1, "critic", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(ctx, ch.Diff); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(c.Dir, "new/b.txt"))
	if string(got) != "hi\n" {
		t.Fatalf("applied content %q", got)
	}
	if _, err := os.Stat(filepath.Join(c.Dir, "gone.txt")); !os.IsNotExist(err) {
		t.Fatalf("deleted file still there: %v", err)
	}
	// A diff that does not fit the tree is rejected.
	d, _ := m.Prepare(ctx, "run1", 2, "critic", events.RepoRef{Path: repo})
	writeFiles(t, d.Dir, map[string]string{"a.txt": "totally different\n"})
	if err := d.Apply(ctx, ch.Diff); !errors.Is(err, workspace.ErrApply) {
		t.Fatalf("err = %v", err)
	}
	for _, w := range []*workspace.Workspace{b, c, d} {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.RemoveRun("run1"); err != nil {
		t.Fatal(err)
	}
}

func TestPrepareFromGitURL(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	writeFiles(t, src, map[string]string{"f.txt": "v1\n"})
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = src
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "v1")
	git("tag", "v1")
	writeFiles(t, src, map[string]string{"f.txt": "v2\n"})
	git("commit", "-qam", "v2")
	m := &workspace.Manager{Root: t.TempDir()}
	w, err := m.Prepare(ctx, "r", 1, "librarian", events.RepoRef{URL: "file://" + src, Ref: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(w.Dir, "f.txt"))
	if string(got) != "v1\n" {
		t.Fatalf("checked out %q", got)
	}
	if len(w.Commit) != 40 {
		t.Fatalf("commit %q: a URL checkout must record its commit", w.Commit)
	}
	// The clone's repository is neither in the work tree nor left beside it.
	for _, p := range []string{filepath.Join(w.Dir, ".git"), w.Dir + ".clone"} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Fatalf("%s exists after the clone: %v", p, err)
		}
	}
	// Cloning that commit later gives the same tree, whatever the branch does.
	pinned, err := m.Prepare(ctx, "r", 2, "builder", events.RepoRef{URL: "file://" + src, Ref: w.Commit})
	if err != nil || pinned.Commit != w.Commit {
		t.Fatalf("pinned clone: %v %q", err, pinned.Commit)
	}
	if _, err := m.Prepare(ctx, "r", 1, "x", events.RepoRef{URL: "file:///nonexistent/repo"}); !errors.Is(err, workspace.ErrRepo) {
		t.Fatalf("err = %v", err)
	}
	if _, err := m.Prepare(ctx, "r", 1, "x", events.RepoRef{Path: "/nonexistent/dir"}); !errors.Is(err, workspace.ErrRepo) {
		t.Fatalf("err = %v", err)
	}
}

func TestCommandEnvWithholdsSecrets(t *testing.T) {
	env := map[string]string{"PATH": "/bin", "OPENAI_API_KEY": "sk-x", "NATS_PASSWORD": "p", "GOFLAGS": "-mod=mod", "HOME": "/root", "GOCACHE": "/root/.cache/go-build",
		"GOPROXY": "https://ci:tok-proxy@proxy.example/go|HTTPS://tok-only@mirror.example,direct", "GOSUMDB": "sum.example+key https://u:tok-sum@sum.example"}
	getenv := func(k string) string { return env[k] }
	got := strings.Join(workspace.CommandEnv(getenv), "\n")
	if strings.Contains(got, "sk-x") || strings.Contains(got, "NATS_PASSWORD") || !strings.Contains(got, "PATH=/bin") || !strings.Contains(got, "GOFLAGS=-mod=mod") || strings.Contains(got, "/root") {
		t.Fatalf("env = %s", got)
	}
	// A private proxy's credentials in its URL stay out; the URL stays.
	if strings.Contains(got, "tok-") || !strings.Contains(got, "GOPROXY=https://proxy.example/go|HTTPS://mirror.example,direct") || !strings.Contains(got, "GOSUMDB=sum.example+key https://sum.example") {
		t.Fatalf("env = %s", got)
	}
	// A workspace's commands get their own HOME and caches, beside the
	// work tree, never the host's.
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{"a.txt": "a"})
	m := &workspace.Manager{Root: t.TempDir()}
	w, err := m.Prepare(context.Background(), "run1", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	// The host's module downloads, when there are some, come first in
	// GOPROXY: still without the credentials.
	env["GOMODCACHE"] = t.TempDir()
	if err := os.MkdirAll(filepath.Join(env["GOMODCACHE"], "cache", "download"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := w.Command(getenv)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(c.Env, "\n")
	if strings.Contains(all, "tok-") || !strings.Contains(all, "/cache/download,https://proxy.example/go|") {
		t.Fatalf("env = %s", all)
	}
	for _, k := range []string{"HOME=", "TMPDIR=", "GOCACHE=", "GOMODCACHE=", "GOPATH="} {
		if !strings.Contains(all, k+w.CacheDir()+"/") {
			t.Errorf("%s not in the workspace cache: %s", k, all)
		}
	}
	if slices.Contains(c.Env, "HOME=/root") || strings.Contains(all, "GOCACHE=/root") || !strings.Contains(all, "-mod=mod -modcacherw") {
		t.Fatalf("env = %s", all)
	}
	if len(c.Writable) != 1 || c.Writable[0] != w.CacheDir() || strings.HasPrefix(w.CacheDir(), w.Dir+"/") {
		t.Fatalf("writable %v, cache %s (must be beside the work tree, not in it)", c.Writable, w.CacheDir())
	}
}

// Caches are per workspace: what one run writes into its caches another
// run never sees, and they go with the workspace.
func TestCachesNotSharedAcrossRuns(t *testing.T) {
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{"a.txt": "a"})
	m := &workspace.Manager{Root: t.TempDir()}
	ctx := context.Background()
	a, err := m.Prepare(ctx, "runA", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Prepare(ctx, "runB", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := a.Command(os.Getenv)
	cb, _ := b.Command(os.Getenv)
	cache := func(c workspace.Command, k string) string {
		for _, kv := range c.Env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		t.Fatalf("%s not set", k)
		return ""
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "HOME", "TMPDIR"} {
		if cache(ca, k) == cache(cb, k) {
			t.Fatalf("%s shared across runs: %s", k, cache(ca, k))
		}
	}
	writeFiles(t, cache(ca, "GOCACHE"), map[string]string{"poison": "x"})
	if _, err := os.Stat(filepath.Join(cache(cb, "GOCACHE"), "poison")); !os.IsNotExist(err) {
		t.Fatalf("run B sees run A's cache entry: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a.CacheDir()); !os.IsNotExist(err) {
		t.Fatalf("cache left after Close: %v", err)
	}
}

func TestAllowedRoots(t *testing.T) {
	allowed, other := t.TempDir(), t.TempDir()
	inside := filepath.Join(allowed, "repo")
	if err := os.MkdirAll(inside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(allowed, "sneaky")); err != nil {
		t.Fatal(err)
	}
	m := &workspace.Manager{Root: t.TempDir(), AllowedRoots: []string{allowed}}
	if err := m.CheckPath(inside); err != nil {
		t.Fatalf("inside: %v", err)
	}
	for _, p := range []string{other, filepath.Join(allowed, "sneaky"), "/"} {
		if err := m.CheckPath(p); !errors.Is(err, workspace.ErrNotAllowed) {
			t.Errorf("%s: err = %v", p, err)
		}
	}
	if _, err := m.Prepare(context.Background(), "r", 1, "builder", events.RepoRef{Path: other}); !errors.Is(err, workspace.ErrNotAllowed) {
		t.Fatalf("prepare outside: %v", err)
	}
	if err := (&workspace.Manager{}).CheckPath("/"); err != nil {
		t.Fatalf("no restriction configured: %v", err)
	}
}

// TestChangeOddPaths: paths with newlines, tabs and colons, binary files,
// a file turned into a symlink and an empty new file are all in the change
// taken from one git process, and the change applies elsewhere.
func TestChangeOddPaths(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{"plain.txt": "a\n", "bin.dat": "x\x00y", "link": "target\n", "old.txt": "old\n"})
	m := &workspace.Manager{Root: t.TempDir()}
	b, err := m.Prepare(ctx, "run1", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, b.Dir, map[string]string{"new\nline\t:x.txt": "one\ntwo\n", "bin.dat": "x\x00z", "empty": "", "plain.txt": "a\nb\n"})
	if err := os.Remove(filepath.Join(b.Dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("plain.txt", filepath.Join(b.Dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(b.Dir, "old.txt"), filepath.Join(b.Dir, "moved.txt")); err != nil {
		t.Fatal(err)
	}
	ch, err := b.Change(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]string{}
	for _, f := range ch.Files {
		ops[f.Path] = f.Op
	}
	want := map[string]string{"new\nline\t:x.txt": "add", "bin.dat": "modify", "empty": "add", "plain.txt": "modify",
		"link": "modify", "old.txt": "delete", "moved.txt": "add"}
	for p, op := range want {
		if ops[p] != op {
			t.Errorf("%q: op %q, want %q (all: %v)", p, ops[p], op, ops)
		}
	}
	if len(ch.Files) != len(want) || ch.Added != 5 || ch.Removed != 2 || !strings.Contains(ch.Diff, "GIT binary patch") {
		t.Errorf("change: %d files +%d -%d\n%s", len(ch.Files), ch.Added, ch.Removed, ch.Diff)
	}
	c, err := m.Prepare(ctx, "run1", 1, "critic", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(ctx, ch.Diff); err != nil {
		t.Fatal(err)
	}
	again, err := c.Change(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again.Diff != ch.Diff || again.Added != ch.Added || len(again.Files) != len(ch.Files) {
		t.Errorf("the applied change differs from the one taken:\n%s\n---\n%s", again.Diff, ch.Diff)
	}
}

// A run's directory is private to the service's user, also when it was
// there before: a command may leave a set-user-ID program in the
// workspace, which no other user may reach.
func TestRunDirectoryIsPrivate(t *testing.T) {
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{"a.txt": "a"})
	m := &workspace.Manager{Root: t.TempDir()}
	if err := os.Mkdir(filepath.Join(m.Root, "run1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Prepare(context.Background(), "run1", 1, "builder", events.RepoRef{Path: repo}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"run1", "run1/1"} {
		fi, err := os.Stat(filepath.Join(m.Root, d))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v: others may enter it", d, fi.Mode().Perm())
		}
	}
}

// A password may hold an '@' (Go takes the userinfo up to the last one
// before the host): none of it reaches a command; the rest of the URL,
// an '@' in its path or query included, is kept.
func TestCommandEnvWithholdsCredentialsWithAt(t *testing.T) {
	env := map[string]string{"GOPROXY": "https://ci:p@ss@w0rd@proxy.example/go/@v,https://proxy2.example?a=b@c|direct"}
	got := strings.Join(workspace.CommandEnv(func(k string) string { return env[k] }), "\n")
	if strings.Contains(got, "ss") || strings.Contains(got, "w0rd") || !strings.Contains(got, "GOPROXY=https://proxy.example/go/@v,https://proxy2.example?a=b@c|direct") {
		t.Fatalf("env = %s", got)
	}
}
