package workspace

import (
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

// untrackedFiles lists (sorted) the slash paths of the work tree's
// entries outside the baseline's tracked paths and excludedFromChange;
// false when that cannot be told (no tracked list, a tree that cannot be
// read).
func (w *Workspace) untrackedFiles() ([]string, bool) {
	if w.tracked == nil {
		return nil, false
	}
	var news []string
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
			news = append(news, rel)
		}
		return nil
	})
	if err != nil {
		return nil, false
	}
	return news, true
}
