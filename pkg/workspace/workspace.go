package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
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
type Workspace struct {
	// Dir is the workspace's directory.
	Dir string
	// Commit is the commit a URL repository was checked out at (empty for
	// a local directory): later phases clone exactly this commit.
	Commit string
	git    string
	keep   bool
}

// ExcludedFromChange are paths never part of a change: the agent's
// cognitive files live in the workspace but are not handed on.
var excludedFromChange = []string{".context"}

// Prepare materialises repo for (runID, attempt, role): a copy of a local
// directory, or a clone of a git URL at its ref; then it records a git
// baseline. A workspace left by an earlier delivery of the same event is
// replaced, so preparing is idempotent. Errors wrap ErrRepo or ErrGit.
func (m *Manager) Prepare(ctx context.Context, runID string, attempt int, role string, repo events.RepoRef) (*Workspace, error) {
	if err := events.ValidateRunID(runID); err != nil {
		return nil, err
	}
	if err := repo.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRepo, err)
	}
	dir := filepath.Join(m.Root, runID, strconv.Itoa(attempt), role)
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("could not clear workspace %s: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("could not create workspace root: %w", err)
	}
	w := &Workspace{Dir: dir, git: m.git(), keep: m.Keep}
	if repo.Path != "" {
		if err := m.CheckPath(repo.Path); err != nil {
			return nil, err
		}
		if err := copyTree(repo.Path, dir); err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("%w: %w", ErrRepo, err)
		}
	} else if err := w.clone(ctx, repo); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := w.baseline(ctx); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
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
	if err := os.RemoveAll(w.Dir); err != nil {
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
	if _, err := w.runGit(ctx, filepath.Dir(w.Dir), "clone", "--quiet", "--", repo.URL, w.Dir); err != nil {
		return fmt.Errorf("%w: %w: %s: %w", ErrRepo, ErrClone, repo.URL, err)
	}
	if repo.Ref != "" {
		if _, err := w.runGit(ctx, w.Dir, "checkout", "--quiet", "--detach", repo.Ref, "--"); err != nil {
			return fmt.Errorf("%w: checkout %s: %w", ErrRepo, repo.Ref, err)
		}
	}
	out, err := w.runGit(ctx, w.Dir, "rev-parse", "HEAD")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRepo, err)
	}
	w.Commit = strings.TrimSpace(out)
	// The change is taken against a fresh baseline, not the remote's history.
	return os.RemoveAll(filepath.Join(w.Dir, ".git"))
}

func (w *Workspace) baseline(ctx context.Context) error {
	steps := [][]string{
		{"init", "--quiet"},
		{"add", "--all", "--force", "--", "."},
		{"commit", "--quiet", "--allow-empty", "--no-verify", "-m", "codali baseline"},
	}
	for _, s := range steps {
		if _, err := w.runGit(ctx, w.Dir, s...); err != nil {
			return err
		}
	}
	return nil
}

// runGit runs git with a fixed identity and no user or system
// configuration, so hooks, aliases and credential helpers of the host
// cannot interfere.
func (w *Workspace) runGit(ctx context.Context, dir string, args ...string) (string, error) {
	full := append([]string{w.git,
		"-c", "user.name=codali", "-c", "user.email=codali@localhost",
		"-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false",
		"-c", "core.autocrlf=false", "-c", "init.defaultBranch=main"}, args...)
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Dir(w.Dir),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_DATE=2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2000-01-01T00:00:00Z",
	}
	res, err := Run(ctx, dir, full, env, 5*time.Minute, 64<<10)
	if err != nil {
		return "", fmt.Errorf("%w: git %s: %w", ErrGit, args[0], err)
	}
	if res.ExitCode != 0 {
		return res.Output, fmt.Errorf("%w: git %s exited %d: %s", ErrGit, args[0], res.ExitCode, strings.TrimSpace(res.Output))
	}
	return res.Output, nil
}

// copyTree copies a directory tree, skipping .git directories. Symlinks
// are copied as links (the workspace's Resolve refuses any that escape).
func copyTree(src, dst string) error {
	info, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("could not read %s: %w", src, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", src)
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if d.Name() == ".git" && rel != "." {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return copyFile(p, target)
		default:
			return nil // sockets, devices: not part of a repository
		}
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fi.Mode().Perm()|0o200)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		return errors.Join(err, out.Close())
	}
	return out.Close()
}

// Change returns the workspace's change against its baseline as a unified
// diff (binary-safe), the changed files and line counts. Paths under
// .context are excluded.
func (w *Workspace) Change(ctx context.Context) (events.Change, error) {
	return w.ChangeWith(ctx)
}

// ContextChangePaths are the .context/ directories a run may hand on in
// its change when asked to (options.write_context): its working memory
// and its history.
var ContextChangePaths = []string{".context/scratchpad", ".context/history"}

// ChangeWith is Change plus the changes under the given paths inside
// .context (for example ContextChangePaths), appended to the diff.
func (w *Workspace) ChangeWith(ctx context.Context, contextPaths ...string) (events.Change, error) {
	if _, err := w.runGit(ctx, w.Dir, "add", "--all", "--force", "--", "."); err != nil {
		return events.Change{}, err
	}
	pathspec := []string{"--", "."}
	for _, ex := range excludedFromChange {
		pathspec = append(pathspec, ":(exclude)"+ex)
	}
	ch, err := w.changeOf(ctx, pathspec)
	if err != nil || len(contextPaths) == 0 {
		return ch, err
	}
	extra, err := w.changeOf(ctx, append([]string{"--"}, contextPaths...))
	if err != nil {
		return events.Change{}, err
	}
	ch.Diff += extra.Diff
	ch.Files = append(ch.Files, extra.Files...)
	ch.Added += extra.Added
	ch.Removed += extra.Removed
	return ch, nil
}

// changeOf is the staged change restricted to pathspec.
func (w *Workspace) changeOf(ctx context.Context, pathspec []string) (events.Change, error) {
	diff, err := w.runGit(ctx, w.Dir, append([]string{"diff", "--cached", "--binary", "--no-color", "--no-ext-diff", "--full-index"}, pathspec...)...)
	if err != nil {
		return events.Change{}, err
	}
	status, err := w.runGit(ctx, w.Dir, append([]string{"diff", "--cached", "--name-status", "--no-renames", "-z"}, pathspec...)...)
	if err != nil {
		return events.Change{}, err
	}
	numstat, err := w.runGit(ctx, w.Dir, append([]string{"diff", "--cached", "--numstat", "--no-renames"}, pathspec...)...)
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
	if _, err := w.runGit(ctx, w.Dir, "apply", "--whitespace=nowarn", "--binary", patch); err != nil {
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
