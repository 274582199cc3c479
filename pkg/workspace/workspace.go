package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/events"
)

// Manager creates workspaces under Root. It is safe for concurrent use:
// every run, attempt and role gets its own directory.
type Manager struct {
	// Root holds the workspaces.
	Root string
	// Keep leaves workspaces on disk after Close.
	Keep bool
	// Git is the git executable. Default "git".
	Git string
	// AllowedRoots, when not empty, are the only directories repository
	// paths may lie in.
	AllowedRoots []string
	// Limits bound copies and diffs; zero fields take the defaults.
	Limits Limits
}

// CheckPath returns an error wrapping ErrNotAllowed (and ErrRepo) when
// AllowedRoots is set and path, with symlinks resolved, is not inside one
// of them.
func (m *Manager) CheckPath(path string) error {
	if len(m.AllowedRoots) == 0 {
		return nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRepo, err)
	}
	for _, root := range m.AllowedRoots {
		if r, err := filepath.EvalSymlinks(root); err == nil && within(r, real) {
			return nil
		}
	}
	return fmt.Errorf("%w: %w: %s is outside the allowed roots", ErrRepo, ErrNotAllowed, path)
}

// Workspace is one materialised copy of a repository with a git baseline.
// The baseline repository lives beside the work tree, never in it, so
// nothing in the tree (a `.git` file or directory, or what a command
// writes) can redirect or configure git.
type Workspace struct {
	// Dir is the workspace's directory.
	Dir string
	// Commit is the commit a URL repository was checked out at (empty for
	// a local directory): later phases clone exactly this commit.
	Commit string
	git    string
	keep   bool
	gitDir string
	cache  string
	lim    Limits
}

// CacheDir is a directory beside the work tree for this workspace's
// command caches (build and module caches, HOME, TMPDIR): private to the
// run, attempt and role, and removed with the workspace.
func (w *Workspace) CacheDir() string { return w.cache }

// siblings are the directories kept beside a work tree dir: the baseline
// repository, a clone's repository and the command caches.
func siblings(dir string) (gitDir, cloneDir, cache string) {
	return dir + ".gitdir", dir + ".clone", dir + ".cache"
}

// removeAll removes a work tree and its siblings.
func removeAll(dir string) error {
	g, c, k := siblings(dir)
	var errs []error
	for _, p := range []string{dir, g, c, k} {
		errs = append(errs, os.RemoveAll(p))
	}
	return errors.Join(errs...)
}

// ExcludedFromChange are paths never part of a change: the agent's
// cognitive files live in the workspace but are not handed on.
var excludedFromChange = []string{".context"}

// Prepare materialises repo for (runID, attempt, role): a copy of a local
// directory (without git metadata or symlinks leaving it, within Limits),
// or a clone of a git URL at its ref whose repository is then removed;
// then it records a git baseline in a repository outside the work tree. A
// workspace left by an earlier delivery of the same event is replaced, so
// preparing is idempotent. Errors wrap ErrRepo (ErrTooLarge for a
// repository over the limits) or ErrGit.
func (m *Manager) Prepare(ctx context.Context, runID string, attempt int, role string, repo events.RepoRef) (*Workspace, error) {
	if err := events.ValidateRunID(runID); err != nil {
		return nil, err
	}
	if err := repo.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRepo, err)
	}
	root, err := filepath.Abs(m.Root)
	if err != nil {
		return nil, fmt.Errorf("could not resolve the workspace root: %w", err)
	}
	dir := filepath.Join(root, runID, strconv.Itoa(attempt), role)
	if err := removeAll(dir); err != nil {
		return nil, fmt.Errorf("could not clear workspace %s: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("could not create workspace root: %w", err)
	}
	gitDir, _, cache := siblings(dir)
	w := &Workspace{Dir: dir, git: m.git(), keep: m.Keep, gitDir: gitDir, cache: cache, lim: m.Limits.withDefaults()}
	if repo.Path != "" {
		if err := m.CheckPath(repo.Path); err != nil {
			return nil, err
		}
		if err := copyTree(repo.Path, dir, m.Limits); err != nil {
			_ = removeAll(dir)
			return nil, fmt.Errorf("%w: %w", ErrRepo, err)
		}
	} else if err := w.clone(ctx, repo); err != nil {
		_ = removeAll(dir)
		return nil, err
	}
	if err := w.baseline(ctx); err != nil {
		_ = removeAll(dir)
		return nil, err
	}
	if err := os.Mkdir(cache, 0o755); err != nil {
		_ = removeAll(dir)
		return nil, fmt.Errorf("could not create the workspace cache: %w", err)
	}
	return w, nil
}

func (m *Manager) git() string {
	if m.Git == "" {
		return "git"
	}
	return m.Git
}

// RemoveRun deletes every workspace of a run unless Keep is set.
func (m *Manager) RemoveRun(runID string) error {
	if m.Keep || events.ValidateRunID(runID) != nil {
		return nil
	}
	return os.RemoveAll(filepath.Join(m.Root, runID))
}

// Close removes the workspace unless it is kept.
func (w *Workspace) Close() error {
	if w.keep {
		return nil
	}
	if err := removeAll(w.Dir); err != nil {
		return err
	}
	// Remove the attempt and run directories once empty; a non-empty one
	// (another role still working) stays, which is not an error.
	attempt := filepath.Dir(w.Dir)
	if os.Remove(attempt) == nil {
		_ = os.Remove(filepath.Dir(attempt))
	}
	return nil
}

// Resolve resolves a workspace-relative path safely (see Resolve).
func (w *Workspace) Resolve(rel string) (string, error) { return Resolve(w.Dir, rel) }

// RealRel resolves a workspace-relative path safely and also returns the
// real relative path behind any symlinks (see RealRel).
func (w *Workspace) RealRel(rel string) (abs, real string, err error) { return RealRel(w.Dir, rel) }

func (w *Workspace) clone(ctx context.Context, repo events.RepoRef) error {
	// The clone's repository goes beside the work tree and is removed once
	// the commit is known: nothing later can reach it.
	_, cloneDir, _ := siblings(w.Dir)
	defer func() { _ = os.RemoveAll(cloneDir) }()
	small := int64(64 << 10)
	if _, err := w.runGit(ctx, filepath.Dir(w.Dir), "", small, "clone", "--quiet", "--no-recurse-submodules", "--separate-git-dir="+cloneDir, "--", repo.URL, w.Dir); err != nil {
		return fmt.Errorf("%w: %w: %s: %w", ErrRepo, ErrClone, repo.URL, err)
	}
	if repo.Ref != "" {
		if _, err := w.runGit(ctx, w.Dir, cloneDir, small, "checkout", "--quiet", "--detach", repo.Ref, "--"); err != nil {
			return fmt.Errorf("%w: checkout %s: %w", ErrRepo, repo.Ref, err)
		}
	}
	out, err := w.runGit(ctx, w.Dir, cloneDir, small, "rev-parse", "HEAD")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRepo, err)
	}
	w.Commit = strings.TrimSpace(out)
	// The change is taken against a fresh baseline, not the remote's
	// history; the .git file clone wrote goes.
	return os.Remove(filepath.Join(w.Dir, ".git"))
}

func (w *Workspace) baseline(ctx context.Context) error {
	steps := [][]string{
		{"init", "--quiet", "--template="},
		{"add", "--all", "--force", "--", "."},
		{"commit", "--quiet", "--allow-empty", "--no-verify", "-m", "codali baseline"},
	}
	for _, s := range steps {
		if _, err := w.runGit(ctx, w.Dir, w.gitDir, 64<<10, s...); err != nil {
			return err
		}
	}
	return nil
}

// Change returns the workspace's change against its baseline as a unified
// diff (binary-safe), the changed files and line counts. Paths under
// .context are excluded.
func (w *Workspace) Change(ctx context.Context) (events.Change, error) {
	if _, err := w.runGit(ctx, w.Dir, w.gitDir, 64<<10, "add", "--all", "--force", "--", "."); err != nil {
		return events.Change{}, err
	}
	pathspec := []string{"--", "."}
	for _, ex := range excludedFromChange {
		pathspec = append(pathspec, ":(exclude)"+ex)
	}
	diff, err := w.runGit(ctx, w.Dir, w.gitDir, w.lim.MaxDiffBytes, append([]string{"diff", "--cached", "--binary", "--no-color", "--no-ext-diff", "--full-index"}, pathspec...)...)
	if err != nil {
		return events.Change{}, err
	}
	status, err := w.runGit(ctx, w.Dir, w.gitDir, w.lim.MaxDiffBytes, append([]string{"diff", "--cached", "--name-status", "--no-renames", "-z"}, pathspec...)...)
	if err != nil {
		return events.Change{}, err
	}
	numstat, err := w.runGit(ctx, w.Dir, w.gitDir, w.lim.MaxDiffBytes, append([]string{"diff", "--cached", "--numstat", "--no-renames"}, pathspec...)...)
	if err != nil {
		return events.Change{}, err
	}
	ch := events.Change{Diff: diff, Files: parseNameStatus(status)}
	for _, line := range strings.Split(numstat, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		a, _ := strconv.Atoi(f[0]) // "-" for binary files counts as 0
		r, _ := strconv.Atoi(f[1])
		ch.Added += a
		ch.Removed += r
	}
	return ch, nil
}

func parseNameStatus(z string) []events.FileChange {
	parts := strings.Split(strings.TrimRight(z, "\x00"), "\x00")
	var out []events.FileChange
	for i := 0; i+1 < len(parts); i += 2 {
		op := "modify"
		switch parts[i] {
		case "A":
			op = "add"
		case "D":
			op = "delete"
		}
		out = append(out, events.FileChange{Path: parts[i+1], Op: op})
	}
	return out
}

// Apply applies a unified diff produced by Change to the workspace. It
// returns an error wrapping ErrApply when the diff does not apply cleanly.
func (w *Workspace) Apply(ctx context.Context, diff string) error {
	if strings.TrimSpace(diff) == "" {
		return nil
	}
	patch := filepath.Join(filepath.Dir(w.Dir), filepath.Base(w.Dir)+".patch")
	if err := os.WriteFile(patch, []byte(diff), 0o600); err != nil {
		return fmt.Errorf("could not write patch: %w", err)
	}
	defer func() { _ = os.Remove(patch) }()
	if _, err := w.runGit(ctx, w.Dir, w.gitDir, 64<<10, "apply", "--whitespace=nowarn", "--binary", patch); err != nil {
		return fmt.Errorf("%w: %w", ErrApply, err)
	}
	return nil
}

// CheckGit reports an error when git cannot be run.
func (m *Manager) CheckGit(ctx context.Context) error {
	res, err := Run(ctx, os.TempDir(), []string{m.git(), "--version"}, []string{"PATH=" + os.Getenv("PATH")}, 10*time.Second, 1024)
	if err != nil {
		return fmt.Errorf("%w: git is required for workspaces: %w", ErrGit, err)
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("%w: git --version exited %d", ErrGit, res.ExitCode)
	}
	return nil
}

// IsNotExist reports whether err means a file does not exist.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
