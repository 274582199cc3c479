package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// copier copies a repository tree into a workspace within limits.
type copier struct {
	root, dst string
	lim       Limits
	entries   int
	bytes     int64
}

// copyTree copies the directory tree src into dst. It never copies git
// metadata in any spelling (see IsGitName; file, directory or link) and
// never copies a symlink that is absolute, dangling, or resolves outside
// the tree or into git metadata: a command in the workspace could
// otherwise write through it. Sockets and devices are skipped. Limits
// exceeded give an error wrapping ErrTooLarge.
func copyTree(src, dst string, lim Limits) error {
	root, err := filepath.EvalSymlinks(src)
	if err != nil {
		return fmt.Errorf("could not read %s: %w", src, err)
	}
	info, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("could not read %s: %w", src, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", src)
	}
	c := &copier{root: root, dst: dst, lim: lim.withDefaults()}
	return filepath.WalkDir(root, c.visit)
}

func (c *copier) visit(p string, d fs.DirEntry, err error) error {
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(c.root, p)
	if err != nil {
		return err
	}
	if rel == "." {
		return os.MkdirAll(c.dst, 0o755)
	}
	if IsGitName(d.Name()) {
		if d.IsDir() {
			return filepath.SkipDir
		}
		return nil
	}
	if c.entries++; c.entries > c.lim.MaxFiles {
		return fmt.Errorf("%w: the repository has more than %d entries", ErrTooLarge, c.lim.MaxFiles)
	}
	target := filepath.Join(c.dst, rel)
	switch {
	case d.IsDir():
		return os.Mkdir(target, 0o755)
	case d.Type()&fs.ModeSymlink != 0:
		link, err := os.Readlink(p)
		if err != nil {
			return err
		}
		if !c.linkInside(p, link) {
			return nil
		}
		return os.Symlink(link, target)
	case d.Type().IsRegular():
		return c.copyFile(p, rel, target)
	default:
		return nil // sockets, devices: not part of a repository
	}
}

// linkInside reports whether the symlink at p with content link may be
// copied: relative, resolving (in the source tree) to an existing path
// inside the tree that is not git metadata.
func (c *copier) linkInside(p, link string) bool {
	if filepath.IsAbs(link) {
		return false // would point at the source tree, or anywhere
	}
	real, err := filepath.EvalSymlinks(filepath.Join(filepath.Dir(p), link))
	if err != nil || !within(c.root, real) {
		return false
	}
	rel, err := filepath.Rel(c.root, real)
	return err == nil && !inGit(filepath.ToSlash(rel))
}

func (c *copier) copyFile(src, rel, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	if fi.Size() > c.lim.MaxFileBytes {
		return fmt.Errorf("%w: %s has %d bytes (limit %d per file)", ErrTooLarge, rel, fi.Size(), c.lim.MaxFileBytes)
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fi.Mode().Perm()|0o200)
	if err != nil {
		return err
	}
	// The file may grow while it is copied: copy one byte past the limit
	// to notice.
	n, err := io.Copy(out, io.LimitReader(in, c.lim.MaxFileBytes+1))
	if err != nil {
		return errors.Join(err, out.Close())
	}
	if err := out.Close(); err != nil {
		return err
	}
	if n > c.lim.MaxFileBytes {
		return fmt.Errorf("%w: %s has more than %d bytes (limit per file)", ErrTooLarge, rel, c.lim.MaxFileBytes)
	}
	if c.bytes += n; c.bytes > c.lim.MaxBytes {
		return fmt.Errorf("%w: the repository has more than %d bytes", ErrTooLarge, c.lim.MaxBytes)
	}
	return nil
}
