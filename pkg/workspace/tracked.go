package workspace

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// trackedSet is a base's tracked paths (its trackedFile), read once per
// base: a base never changes once made.
type trackedSet struct {
	paths map[string]struct{}
	// attributes: a .gitattributes is among them.
	attributes bool
}

// readTracked reads the base's list of tracked paths; nil when the base
// has none or it cannot be read (the callers then take the paths that do
// not need it).
func readTracked(b *base) *trackedSet {
	data, err := os.ReadFile(filepath.Join(b.dir, trackedFile))
	if err != nil {
		return nil
	}
	t := &trackedSet{paths: make(map[string]struct{}, strings.Count(string(data), "\x00"))}
	for p := range strings.SplitSeq(strings.TrimSuffix(string(data), "\x00"), "\x00") {
		if p != "" {
			t.paths[p] = struct{}{}
			t.attributes = t.attributes || path.Base(p) == ".gitattributes"
		}
	}
	return t
}

// trackedCache keeps the tracked sets of the bases a Manager used.
type trackedCache struct {
	mu   sync.Mutex
	sets map[string]*trackedSet // base dir -> its set
}

// trackedOf is b's tracked set, read from the base once. The cache holds
// at most a few times MaxBases sets (it starts over when full).
func (m *Manager) trackedOf(b *base) *trackedSet {
	c := &m.tracked
	c.mu.Lock()
	t, ok := c.sets[b.dir]
	c.mu.Unlock()
	if ok {
		return t
	}
	t = readTracked(b)
	if t == nil {
		return nil // not kept: the list may be written later
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sets == nil || len(c.sets) >= 4*max(m.MaxBases, DefaultMaxBases) {
		c.sets = map[string]*trackedSet{}
	}
	c.sets[b.dir] = t
	return t
}

// setTracked gives w the tracked paths of its base b.
func (w *Workspace) setTracked(t *trackedSet) {
	if t == nil {
		w.tracked, w.trackedAttributes = nil, false
		return
	}
	w.tracked, w.trackedAttributes = t.paths, t.attributes
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
