package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// trackedPaths reads the base's list of tracked paths; nil when the base
// has none or it cannot be read (the callers then take the paths that do
// not need it).
func (b *base) trackedPaths() map[string]struct{} {
	data, err := os.ReadFile(filepath.Join(b.dir, trackedFile))
	if err != nil {
		return nil
	}
	set := make(map[string]struct{}, strings.Count(string(data), "\x00"))
	for p := range strings.SplitSeq(strings.TrimSuffix(string(data), "\x00"), "\x00") {
		if p != "" {
			set[p] = struct{}{}
		}
	}
	return set
}

// errUntracked stops the walk of hasUntracked at the first path the
// baseline does not track.
var errUntracked = errors.New("untracked path")

// hasUntracked reports whether the work tree holds anything but
// directories outside the baseline's tracked paths, not counting what is
// under the excluded paths (excludedFromChange): a new file, link, fifo,
// anything git add would pick up or refuse. An error (a tree that cannot
// be read) counts as true: the caller then takes the path that asks git.
func (w *Workspace) hasUntracked() bool {
	if w.tracked == nil {
		return true
	}
	err := filepath.WalkDir(w.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == w.Dir {
			return nil
		}
		rel, err := filepath.Rel(w.Dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if excluded(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if _, ok := w.tracked[rel]; !ok {
			return errUntracked
		}
		return nil
	})
	return err != nil
}

// excluded reports whether the slash path rel is one of excludedFromChange
// or lies below one.
func excluded(rel string) bool {
	for _, ex := range excludedFromChange {
		if rel == ex || strings.HasPrefix(rel, ex+"/") {
			return true
		}
	}
	return false
}
