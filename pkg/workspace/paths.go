package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Clean normalises a workspace-relative, slash-separated path and rejects
// absolute paths, paths that climb out with "..", empty paths and NUL bytes.
// The result uses forward slashes.
func Clean(rel string) (string, error) {
	if rel == "" || strings.ContainsRune(rel, 0) {
		return "", fmt.Errorf("%w: %q is empty or contains NUL", ErrPathEscapes, rel)
	}
	rel = strings.ReplaceAll(rel, "\\", "/")
	if strings.HasPrefix(rel, "/") || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "" {
		return "", fmt.Errorf("%w: %q is absolute", ErrPathEscapes, rel)
	}
	c := filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%w: %q leaves the workspace", ErrPathEscapes, rel)
	}
	return c, nil
}

// Resolve turns a workspace-relative path into an absolute path inside
// root. Besides Clean's checks it follows symlinks of every existing parent
// (and of the target, if it exists) and rejects any that lead outside root,
// and it refuses any path that is, or goes through, a .git directory —
// named directly or reached through a symlink.
func Resolve(root, rel string) (string, error) {
	abs, _, err := resolve(root, rel)
	return abs, err
}

// RealRel is Resolve that also returns the real workspace-relative path
// behind any symlinks (equal to the cleaned path when there are none), so
// a policy can judge the file that is really touched.
func RealRel(root, rel string) (abs, real string, err error) { return resolve(root, rel) }

func inGit(slashPath string) bool {
	for _, part := range strings.Split(slashPath, "/") {
		if IsGitName(part) {
			return true
		}
	}
	return false
}

func resolve(root, rel string) (string, string, error) {
	c, err := Clean(rel)
	if err != nil {
		return "", "", err
	}
	if inGit(c) {
		return "", "", fmt.Errorf("%w: %q is inside .git", ErrPathEscapes, rel)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", "", fmt.Errorf("could not resolve workspace root: %w", err)
	}
	abs := filepath.Join(realRoot, filepath.FromSlash(c))
	// Walk up to the deepest existing ancestor and check where it really is.
	probe, realPath := abs, abs
	for {
		real, err := filepath.EvalSymlinks(probe)
		if err == nil {
			if !within(realRoot, real) {
				return "", "", fmt.Errorf("%w: %q resolves outside through a symlink", ErrPathEscapes, rel)
			}
			tail, _ := filepath.Rel(probe, abs)
			realPath = filepath.Join(real, tail)
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", "", fmt.Errorf("could not resolve %q: %w", rel, err)
		}
		// A dangling symlink on the way (into a .git that is not there,
		// or anywhere) could be written through once its target exists.
		if fi, err := os.Lstat(probe); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", "", fmt.Errorf("%w: %q goes through a dangling symlink", ErrPathEscapes, rel)
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			break
		}
		probe = parent
	}
	// A dangling symlink as the final element could be written through.
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(abs)
		if err != nil || !within(realRoot, target) {
			return "", "", fmt.Errorf("%w: %q is a symlink leading outside", ErrPathEscapes, rel)
		}
	}
	realRel, err := filepath.Rel(realRoot, realPath)
	if err != nil {
		return "", "", fmt.Errorf("could not resolve %q: %w", rel, err)
	}
	realRel = filepath.ToSlash(realRel)
	if inGit(realRel) {
		return "", "", fmt.Errorf("%w: %q leads into .git through a symlink", ErrPathEscapes, rel)
	}
	return abs, realRel, nil
}

func within(root, p string) bool {
	if p == root {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}
