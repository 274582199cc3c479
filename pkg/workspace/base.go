package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/events"
)

// DefaultMaxBases bounds the cached bases kept under the root.
const DefaultMaxBases = 32

// basesDirName holds the cached bases under the workspace root; run ids
// cannot contain '.', so no run collides with it.
const basesDirName = ".bases"

// readyFile is written last into a base: "<baseline commit> [<source commit>]".
const readyFile = "ready"

// trackedFile lists the paths the baseline commit tracks, NUL-separated
// (`git ls-files -z`): what a workspace made from the base holds before
// anything changes it (see Workspace.tracked). A base without it (made
// by an older version) is still used; its workspaces take the slower
// paths that do not need the list.
const trackedFile = "tracked"

// A base is one repository state prepared once and copied into every
// workspace that needs it: a sanitised tree (see copyTree) and a packed
// git repository whose one commit is that tree. A base is built in a
// temporary directory and renamed into place complete, never changes
// afterwards, and lives outside every sandbox: a run only ever gets a copy
// of the tree, and its own repository whose pack files are hard links to
// the base's immutable ones. Local directories are keyed by their path and
// the metadata of every entry (size, times, inode, mode, link target), URL
// repositories by URL and commit.
type base struct {
	dir    string // <root>/.bases/<key>
	commit string // the baseline commit
	source string // the commit a URL base was cloned at; "" for a directory
}

func (b *base) tree() string   { return filepath.Join(b.dir, "tree") }
func (b *base) gitDir() string { return filepath.Join(b.dir, "git") }

// loadBase returns the complete base in dir, marking it used.
func loadBase(dir string) (*base, bool) {
	data, err := os.ReadFile(filepath.Join(dir, readyFile))
	if err != nil {
		return nil, false
	}
	f := strings.Fields(string(data))
	if len(f) == 0 || !isCommitID(f[0]) {
		return nil, false
	}
	b := &base{dir: dir, commit: f[0]}
	if len(f) > 1 {
		b.source = f[1]
	}
	now := time.Now()
	_ = os.Chtimes(filepath.Join(dir, readyFile), now, now)
	return b, true
}

func isCommitID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func key(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		_, _ = io.WriteString(h, p)
		_, _ = h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// localBase returns the base of a local directory, building it when the
// directory's entries changed since (or no base exists).
func (m *Manager) localBase(ctx context.Context, root, src string) (*base, error) {
	real, err := filepath.EvalSymlinks(src)
	if err != nil {
		return nil, fmt.Errorf("%w: could not read %s: %w", ErrRepo, src, err)
	}
	sig, err := signature(real, m.Limits)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRepo, err)
	}
	return m.buildBase(ctx, root, key("path", real, sig), "", func(tree string) error {
		if err := copyTree(real, tree, m.Limits); err != nil {
			return fmt.Errorf("%w: %w", ErrRepo, err)
		}
		return nil
	})
}

// urlBase returns the base of a URL at its ref. A ref that is a commit id
// whose base exists needs no clone; otherwise the repository is cloned
// into a scratch directory beside the bases (its repository kept apart
// from its tree), and the tree sanitised into the base.
func (m *Manager) urlBase(ctx context.Context, root string, repo events.RepoRef) (*base, error) {
	bases := filepath.Join(root, basesDirName)
	if isCommitID(repo.Ref) {
		if b, ok := loadBase(filepath.Join(bases, key("url", repo.URL, repo.Ref))); ok {
			return b, nil
		}
	}
	if err := os.MkdirAll(bases, 0o755); err != nil {
		return nil, fmt.Errorf("could not create %s: %w", bases, err)
	}
	scratch, err := os.MkdirTemp(bases, "tmp-clone-")
	if err != nil {
		return nil, fmt.Errorf("could not create a clone directory: %w", err)
	}
	defer func() { _ = os.RemoveAll(scratch) }()
	work, cloneDir := filepath.Join(scratch, "work"), filepath.Join(scratch, "git")
	const small = 64 << 10
	g := gitRun{git: m.git(), scratch: scratch, protocols: cloneProtocols(repo)}
	if _, err := g.run(ctx, scratch, small, "clone", "--quiet", "--no-recurse-submodules", "--separate-git-dir="+cloneDir, "--", repo.URL, work); err != nil {
		return nil, fmt.Errorf("%w: %w: %s: %w", ErrRepo, ErrClone, repo.URL, err)
	}
	g.gitDir, g.workTree = cloneDir, work
	if repo.Ref != "" {
		if _, err := g.run(ctx, work, small, "checkout", "--quiet", "--detach", repo.Ref, "--"); err != nil {
			return nil, fmt.Errorf("%w: checkout %s: %w", ErrRepo, repo.Ref, err)
		}
	}
	out, err := g.run(ctx, work, small, "rev-parse", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRepo, err)
	}
	commit := strings.TrimSpace(out)
	return m.buildBase(ctx, root, key("url", repo.URL, commit), commit, func(tree string) error {
		// copyTree leaves out the .git file clone wrote, and any link out.
		if err := copyTree(work, tree, m.Limits); err != nil {
			return fmt.Errorf("%w: %w", ErrRepo, err)
		}
		return nil
	})
}

// buildBase returns the base k, building it with fill (which writes the
// tree) when it does not exist yet. Concurrent builders of one key both
// build; the first rename wins and the other uses it.
func (m *Manager) buildBase(ctx context.Context, root, k, source string, fill func(tree string) error) (*base, error) {
	bases := filepath.Join(root, basesDirName)
	final := filepath.Join(bases, k)
	if b, ok := loadBase(final); ok {
		return b, nil
	}
	if err := os.MkdirAll(bases, 0o755); err != nil {
		return nil, fmt.Errorf("could not create %s: %w", bases, err)
	}
	tmp, err := os.MkdirTemp(bases, "tmp-")
	if err != nil {
		return nil, fmt.Errorf("could not create a base directory: %w", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	b := &base{dir: tmp, source: source}
	if err := fill(b.tree()); err != nil {
		return nil, err
	}
	g := gitRun{git: m.git(), gitDir: b.gitDir(), workTree: b.tree(), scratch: tmp}
	for _, s := range [][]string{
		{"init", "--quiet", "--template="},
		{"add", "--all", "--force", "--", "."},
		{"commit", "--quiet", "--allow-empty", "--no-verify", "-m", "codali baseline"},
		{"repack", "-a", "-d", "-q"},
	} {
		if _, err := g.run(ctx, b.tree(), 64<<10, s...); err != nil {
			return nil, err
		}
	}
	out, err := g.run(ctx, b.tree(), 4096, "rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	b.commit = strings.TrimSpace(out)
	files, err := g.run(ctx, b.tree(), 64<<20, "ls-files", "-z")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, trackedFile), []byte(files), 0o644); err != nil {
		return nil, fmt.Errorf("could not write the base: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, readyFile), []byte(strings.TrimSpace(b.commit+" "+source)+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("could not write the base: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		if other, ok := loadBase(final); ok {
			return other, nil
		}
		return nil, fmt.Errorf("could not store the base: %w", err)
	}
	b.dir = final
	m.pruneBases(bases, k)
	return b, nil
}

// pruneBases removes the least recently used bases beyond MaxBases (never
// keep) and scratch directories left by a crash. A base is first renamed
// away, so it is never seen half removed. A workspace made from a removed
// base keeps working: it holds copies and hard links only.
func (m *Manager) pruneBases(bases, keep string) {
	entries, err := os.ReadDir(bases)
	if err != nil {
		return
	}
	type used struct {
		name string
		at   time.Time
	}
	var all []used
	for _, e := range entries {
		info, err := os.Stat(filepath.Join(bases, e.Name(), readyFile))
		switch {
		case strings.HasPrefix(e.Name(), "tmp-"):
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour {
				_ = os.RemoveAll(filepath.Join(bases, e.Name()))
			}
		case err == nil && e.Name() != keep:
			all = append(all, used{e.Name(), info.ModTime()})
		}
	}
	limit := m.MaxBases
	if limit <= 0 {
		limit = DefaultMaxBases
	}
	if len(all) < limit {
		return
	}
	sort.Slice(all, func(i, j int) bool { return all[i].at.After(all[j].at) })
	for _, u := range all[limit-1:] {
		gone := filepath.Join(bases, "tmp-gone-"+u.name)
		if os.Rename(filepath.Join(bases, u.name), gone) == nil {
			_ = os.RemoveAll(gone)
		}
	}
}

// materialize makes w from b: a copy of the tree, and a repository of its
// own whose history is the base's (pack files hard-linked: git never
// writes into an existing pack) with the base's index, and HEAD detached
// at the baseline commit (git needs a refs directory, no branch).
func (b *base) materialize(w *Workspace, lim Limits) error {
	if err := copyTree(b.tree(), w.Dir, lim); err != nil {
		return err
	}
	packs := filepath.Join(w.gitDir, "objects", "pack")
	if err := os.MkdirAll(packs, 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(filepath.Join(w.gitDir, "refs"), 0o755); err != nil {
		return err
	}
	src := filepath.Join(b.gitDir(), "objects", "pack")
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := linkOrCopy(filepath.Join(src, e.Name()), filepath.Join(packs, e.Name())); err != nil {
			return err
		}
	}
	if err := linkOrCopyFile(filepath.Join(b.gitDir(), "index"), filepath.Join(w.gitDir, "index"), false); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(w.gitDir, "HEAD"), []byte(b.commit+"\n"), 0o644)
}

func linkOrCopy(src, dst string) error { return linkOrCopyFile(src, dst, true) }

// linkOrCopyFile hard-links src to dst when link is set and that works
// (same filesystem), and copies it otherwise.
func linkOrCopyFile(src, dst string, link bool) error {
	if link && os.Link(src, dst) == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		return errors.Join(err, out.Close())
	}
	return out.Close()
}
