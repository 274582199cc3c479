package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
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
	// MaxBases bounds the cached bases (prepared repository states) kept
	// under Root/.bases; default DefaultMaxBases.
	MaxBases int
	// Spares is how many ready copies of each base in use are kept under
	// Root/.spares (0: none). A Prepare that finds one takes it by
	// renaming it into place, and a new one is made in the background;
	// Close then also removes in the background. Call Wait before removing
	// Root.
	Spares int
	// AllowedHosts, when not empty, are the only hosts repository URLs may
	// name (see CheckRepo).
	AllowedHosts []string
	// Log receives what goes wrong in the background (making a ready copy,
	// removing a closed workspace): nothing fails then, since a Prepare
	// that finds no ready copy copies the tree itself. Nil: not logged.
	Log *slog.Logger

	spares  spares
	tracked trackedCache
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
	// byGit makes git apply every patch (tests compare applyText with it).
	byGit bool
	// patched is set once a patch was applied (or tried): the tree is no
	// longer as prepared (see plainTree).
	patched bool
	// tracked is the set of paths the baseline commit tracks (nil when the
	// base does not list them): the work tree as prepared, before anyone
	// changed it.
	tracked map[string]struct{}
	// trackedAttributes: a .gitattributes is among the tracked paths.
	trackedAttributes bool
	// trackedSet is the set tracked and trackedAttributes come from.
	trackedSet *trackedSet
	// snap is the identity of the tracked paths as the tree was made (nil
	// when none was taken): git reads only the paths that differ from it.
	snap *snapshot
	// commanded is set once Command handed the tree to a process (see
	// snapshot.everyWrite).
	commanded atomic.Bool
	// staged is set once ChangeWith staged the work tree: the index is no
	// longer the baseline's, so the work tree against it is not the change.
	staged bool
	// read is set once ChangeWith ran git: the index may hold the tree's
	// stat data since (diff.autoRefreshIndex, git add), and git does not
	// read a file whose stat data matches it (see resetIndexStat).
	read bool
	// trash, when set, is where Close moves the workspace for
	// removeLater to remove in the background.
	trash       string
	removeLater func(dir string)
}

// CacheDir is a directory beside the work tree for this workspace's
// command caches (build and module caches, HOME, TMPDIR): private to the
// run, attempt and role, and removed with the workspace.
func (w *Workspace) CacheDir() string { return w.cache }

// siblings are the directories kept beside a work tree dir: its
// repository and the command caches.
func siblings(dir string) (gitDir, cache string) {
	return dir + ".gitdir", dir + ".cache"
}

// removeAll removes a work tree and its siblings.
func removeAll(dir string) error {
	g, k := siblings(dir)
	var errs []error
	for _, p := range []string{dir, g, k} {
		errs = append(errs, os.RemoveAll(p))
	}
	return errors.Join(errs...)
}

// ExcludedFromChange are paths never part of a change: the agent's
// cognitive files live in the workspace but are not handed on.
var excludedFromChange = []string{".context"}

// Prepare materialises repo for (runID, attempt, role). The repository —
// a local directory, or a git URL at its ref — is prepared once per state
// as a cached base (see base): sanitised (no git metadata in any spelling,
// no symlinks leaving it, within Limits) and committed as the baseline in
// a repository outside the work tree. The workspace is a copy of the
// base's tree with a repository of its own, so a run never sees another
// run's edits. A workspace left by an earlier delivery of the same event
// is replaced, so preparing is idempotent. Errors wrap ErrRepo
// (ErrTooLarge for a repository over the limits, ErrClone for a failed
// clone) or ErrGit.
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
	if err := m.CheckRepo(repo); err != nil {
		return nil, err
	}
	dir := filepath.Join(root, runID, strconv.Itoa(attempt), role)
	if err := removeAll(dir); err != nil {
		return nil, fmt.Errorf("could not clear workspace %s: %w", dir, err)
	}
	// A run's directory is the service user's alone: a command may leave
	// a set-user-ID program in its workspace (its uid 0 is the host's when
	// the service runs as root), which no other user of the host may reach.
	// (Made so, also when an earlier delivery left it.)
	if err := errors.Join(os.MkdirAll(filepath.Dir(dir), 0o700), os.Chmod(filepath.Join(root, runID), 0o700)); err != nil {
		return nil, fmt.Errorf("could not create workspace root: %w", err)
	}
	if repo.Path != "" {
		if err := m.CheckPath(repo.Path); err != nil {
			return nil, err
		}
	}
	gitDir, cache := siblings(dir)
	w := &Workspace{Dir: dir, git: m.git(), keep: m.Keep, gitDir: gitDir, cache: cache, lim: m.Limits.withDefaults()}
	if m.Spares > 0 {
		w.trash = filepath.Join(root, sparesDirName)
		w.removeLater = m.removeLater
	}
	// A base pruned (by another Prepare) while it is copied fails the copy:
	// the second try builds it again.
	for try := 1; ; try++ {
		var b *base
		if repo.Path != "" {
			b, err = m.localBase(ctx, root, repo.Path)
		} else {
			b, err = m.urlBase(ctx, root, repo)
		}
		if err != nil {
			return nil, err
		}
		w.Commit = b.source
		if snap, ok := m.takeSpare(b, w); ok {
			if snap != nil {
				w.setTracked(snap.set)
			} else {
				w.setTracked(m.trackedOf(b))
			}
			w.snap = snap
			m.refill(root, b)
			break
		}
		err = b.materialize(w, m.Limits)
		if err == nil {
			t := m.trackedOf(b)
			w.setTracked(t)
			w.snap = takeSnapshot(w.Dir, w.gitDir, t, 0)
			m.refill(root, b)
			break
		}
		_ = removeAll(dir)
		if try == 2 {
			return nil, fmt.Errorf("could not make the workspace from its base: %w", err)
		}
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
	if err := w.remove(); err != nil {
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

// remove removes the work tree and its siblings: moved into the trash
// and removed in the background when the Manager keeps spares, at once
// otherwise (or when the move fails).
func (w *Workspace) remove() error {
	if w.trash == "" {
		return removeAll(w.Dir)
	}
	gone, err := os.MkdirTemp(w.trash, "gone-")
	if err != nil {
		return removeAll(w.Dir)
	}
	g, k := siblings(w.Dir)
	for i, p := range []string{w.Dir, g, k} {
		if err := os.Rename(p, filepath.Join(gone, strconv.Itoa(i))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			w.removeLater(gone)
			return removeAll(w.Dir)
		}
	}
	w.removeLater(gone)
	return nil
}

// Resolve resolves a workspace-relative path safely (see Resolve).
func (w *Workspace) Resolve(rel string) (string, error) { return Resolve(w.Dir, rel) }

// RealRel resolves a workspace-relative path safely and also returns the
// real relative path behind any symlinks (see RealRel).
func (w *Workspace) RealRel(rel string) (abs, real string, err error) { return RealRel(w.Dir, rel) }

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
//
// Usually at most one git process reads it: the work tree against the
// baseline's index, limited to the tracked paths that changed since the
// tree was made (see snapshot and scan; none when no tracked path did),
// with the patches of new files (which git does not list there) written
// here exactly as git writes them (see newFilePatches). When a new file
// is one this cannot write, or with contextPaths, everything is staged
// first (`git add --all --force`) and the staged change is read.
func (w *Workspace) ChangeWith(ctx context.Context, contextPaths ...string) (events.Change, error) {
	if err := w.resetIndexStat(ctx); err != nil {
		return events.Change{}, err
	}
	w.read = true
	pathspec := []string{"--", "."}
	for _, ex := range excludedFromChange {
		pathspec = append(pathspec, ":(exclude)"+ex)
	}
	if len(contextPaths) == 0 && !w.staged {
		if ch, ok, err := w.unstagedChange(ctx, pathspec); ok || err != nil {
			return ch, err
		}
	}
	w.staged = true
	if _, err := w.runGit(ctx, w.Dir, w.gitDir, 64<<10, "add", "--all", "--force", "--", "."); err != nil {
		return events.Change{}, err
	}
	ch, _, err := w.changeOf(ctx, true, pathspec)
	if err != nil || len(contextPaths) == 0 {
		return ch, err
	}
	extra, _, err := w.changeOf(ctx, true, append([]string{"--"}, contextPaths...))
	if err != nil {
		return events.Change{}, err
	}
	ch.Diff += extra.Diff
	ch.Files = append(ch.Files, extra.Files...)
	ch.Added += extra.Added
	ch.Removed += extra.Removed
	return ch, nil
}

// resetIndexStat drops the stat data a change read earlier recorded in
// the index, when a command was given the tree since on a filesystem
// that does not move a file's times on every write (see snapshot): git
// skips a file whose stat data matches its index entry, and a write
// through a shared memory mapping on tmpfs leaves it matching. The index
// is the baseline's tree again (`git read-tree HEAD`, with no stat
// data), so git reads every tracked file; a staged change is staged
// again from the work tree by ChangeWith.
func (w *Workspace) resetIndexStat(ctx context.Context) error {
	if !w.read || !w.commanded.Load() || tracksEveryWrite(w.Dir) {
		return nil
	}
	if _, err := w.runGit(ctx, w.Dir, w.gitDir, 64<<10, "read-tree", "HEAD"); err != nil {
		return fmt.Errorf("could not reset the index to the baseline: %w", err)
	}
	return nil
}

// unstagedChange is the change without staging it: false when it cannot
// be read that way (see ChangeWith). pathspec is the whole change's; git
// is given only the tracked paths scan lists, when it lists them.
func (w *Workspace) unstagedChange(ctx context.Context, pathspec []string) (events.Change, bool, error) {
	news, check, all, ok := w.scan()
	if !ok {
		return events.Change{}, false, nil
	}
	patches, ok := w.newFilePatches(news)
	if !ok {
		return events.Change{}, false, nil
	}
	var ch events.Change
	var kinds []string
	var err error
	switch {
	case all:
		ch, kinds, err = w.changeOf(ctx, false, pathspec)
	case len(check) > 0:
		ch, kinds, err = w.changeOf(ctx, false, literalPathspec(check))
	}
	if err != nil {
		return events.Change{}, false, err
	}
	merged, ok := withNewFiles(ch, kinds, patches)
	if !ok {
		return events.Change{}, false, nil
	}
	if int64(len(merged.Diff)) > w.lim.MaxDiffBytes {
		return events.Change{}, false, fmt.Errorf("%w: the change is more than %d bytes", ErrTooLarge, w.lim.MaxDiffBytes)
	}
	return merged, true, nil
}

// literalPathspec names exactly paths (no glob or magic in them is
// read: a name may start with ':' or hold '*'), less excludedFromChange.
func literalPathspec(paths []string) []string {
	spec := make([]string, 0, len(paths)+1+len(excludedFromChange))
	spec = append(spec, "--")
	for _, p := range paths {
		spec = append(spec, ":(literal)"+p)
	}
	for _, ex := range excludedFromChange {
		spec = append(spec, ":(exclude)"+ex)
	}
	return spec
}

// changeOf is the change restricted to pathspec, from one git process:
// the raw and numstat records (files and line counts) and the
// binary-safe patch come out of the same `git diff`, so they always
// describe the same change. Renames are a deletion and an addition.
// With staged set it is the index against the baseline commit; without,
// the work tree against the index (which must then be the baseline's:
// files whose stat data differs but whose content does not are no
// change, diff.autoRefreshIndex). kinds are the files' raw status letters.
func (w *Workspace) changeOf(ctx context.Context, staged bool, pathspec []string) (events.Change, []string, error) {
	args := []string{"diff"}
	if staged {
		args = append(args, "--cached")
	}
	args = append(args, "--raw", "--numstat", "--patch", "--binary", "-z", "--no-renames", "--no-color", "--no-ext-diff", "--full-index")
	out, err := w.runGit(ctx, w.Dir, w.gitDir, 2*w.lim.MaxDiffBytes, append(args, pathspec...)...)
	if err != nil {
		return events.Change{}, nil, err
	}
	stat, diff, err := splitChange(out)
	if err != nil {
		return events.Change{}, nil, fmt.Errorf("%w: %w", ErrGit, err)
	}
	if int64(len(diff)) > w.lim.MaxDiffBytes || int64(len(stat)) > w.lim.MaxDiffBytes {
		return events.Change{}, nil, fmt.Errorf("%w: git diff printed more than %d bytes", ErrTooLarge, w.lim.MaxDiffBytes)
	}
	ch := events.Change{Diff: diff}
	var kinds []string
	ch.Files, kinds, ch.Added, ch.Removed = parseRawNumstat(stat)
	return ch, kinds, nil
}

// errDiffFormat is output of git diff that splitChange cannot read.
var errDiffFormat = errors.New("unexpected git diff output")

// splitChange splits the output of `git diff --raw --numstat --patch -z
// --no-renames` into its records (N raw records ":<modes> <ids>
// <status>\0<path>\0", then N numstat records "<added>\t<removed>\t<path>\0")
// and the patch after them (behind one NUL separator).
func splitChange(out string) (stat, patch string, err error) {
	pos := 0
	field := func() bool {
		i := strings.IndexByte(out[pos:], 0)
		if i < 0 {
			return false
		}
		pos += i + 1
		return true
	}
	files := 0
	for strings.HasPrefix(out[pos:], ":") {
		header := field()
		path := header && field()
		if !path {
			return "", "", fmt.Errorf("%w: a raw record without its path", errDiffFormat)
		}
		files++
	}
	for i := 0; i < files; i++ {
		if !field() {
			return "", "", fmt.Errorf("%w: %d files but fewer numstat records", errDiffFormat, files)
		}
	}
	stat = out[:pos]
	if files > 0 && strings.HasPrefix(out[pos:], "\x00") {
		pos++
	}
	patch = out[pos:]
	if (files == 0) != (patch == "") || (patch != "" && !strings.HasPrefix(patch, "diff --git ")) {
		return "", "", fmt.Errorf("%w: %d files and a patch of %d bytes", errDiffFormat, files, len(patch))
	}
	return stat, patch, nil
}

// parseRawNumstat reads `git diff --raw --numstat -z` (no renames): raw
// records ":<modes> <ids> <status>\0<path>\0", then numstat records
// "<added>\t<removed>\t<path>\0" ("-" for binary files counts as 0).
// kinds are the files' status letters.
func parseRawNumstat(z string) (files []events.FileChange, kinds []string, added, removed int) {
	parts := strings.Split(strings.TrimRight(z, "\x00"), "\x00")
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		if strings.HasPrefix(p, ":") {
			if i+1 >= len(parts) {
				break
			}
			f := strings.Fields(p)
			kind := f[len(f)-1]
			op := "modify"
			switch kind {
			case "A":
				op = "add"
			case "D":
				op = "delete"
			}
			files = append(files, events.FileChange{Path: parts[i+1], Op: op})
			kinds = append(kinds, kind)
			i++
			continue
		}
		n := strings.SplitN(p, "\t", 3)
		if len(n) == 3 {
			a, _ := strconv.Atoi(n[0])
			r, _ := strconv.Atoi(n[1])
			added += a
			removed += r
		}
	}
	return files, kinds, added, removed
}

// CheckGit reports an error when git cannot be run.
func (m *Manager) CheckGit(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, m.git(), "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: git is required for workspaces: %w: %s", ErrGit, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// IsNotExist reports whether err means a file does not exist.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
