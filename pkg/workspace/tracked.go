package workspace

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// trackedSet is a base's tracked paths (its trackedFile), read once per
// base: a base never changes once made.
type trackedSet struct {
	paths map[string]struct{}
	// attributes: a .gitattributes is among them.
	attributes bool
	// changing are the paths outside excludedFromChange, sorted, and
	// position their positions: the order of a snapshot's identities.
	changing []string
	position map[string]int
}

// newTrackedSet is the set of paths (slash paths, none empty).
func newTrackedSet(paths []string) *trackedSet {
	t := &trackedSet{paths: make(map[string]struct{}, len(paths))}
	for _, p := range paths {
		t.paths[p] = struct{}{}
		t.attributes = t.attributes || path.Base(p) == ".gitattributes"
	}
	for p := range t.paths {
		if !excluded(p) {
			t.changing = append(t.changing, p)
		}
	}
	sort.Strings(t.changing)
	t.position = make(map[string]int, len(t.changing))
	for i, p := range t.changing {
		t.position[p] = i
	}
	return t
}

// readTracked reads the base's list of tracked paths; nil when the base
// has none or it cannot be read (the callers then take the paths that do
// not need it).
func readTracked(b *base) *trackedSet {
	data, err := os.ReadFile(filepath.Join(b.dir, trackedFile))
	if err != nil {
		return nil
	}
	paths := make([]string, 0, strings.Count(string(data), "\x00"))
	for p := range strings.SplitSeq(strings.TrimSuffix(string(data), "\x00"), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return newTrackedSet(paths)
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
	w.trackedSet = t
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

// Bounds of the tracked paths named to git one by one (see scan): more
// than that, and git reads the whole tree instead.
const (
	maxCheckPaths = 1000
	maxCheckBytes = 256 << 10
)

// scan walks the work tree once, never following a link and leaving out
// excludedFromChange. news lists (sorted) the slash paths of the entries
// outside the baseline's tracked paths. check lists the tracked paths
// git must read for the change: with the workspace's snapshot, those no
// longer found as a file or link where they were (deleted, replaced by a
// directory, below a directory replaced by a link), those whose identity
// differs from it (see fileID), and the racy ones. all is set when git
// must read every tracked path instead: no snapshot, or more paths to
// check than git is given one by one. It is false when that cannot be
// told (no tracked list, a tree that cannot be read).
func (w *Workspace) scan() (news, check []string, all, ok bool) {
	if w.tracked == nil {
		return nil, nil, false, false
	}
	s := w.snap
	if s != nil && (s.set != w.trackedSet || !s.everyWrite && w.commanded.Load()) {
		// Not taken of these tracked paths, or a process was given the
		// tree, which may have written it unseen (see snapshot).
		s = nil
	}
	var seen, changed []bool
	if s != nil {
		seen, changed = make([]bool, len(s.ids)), make([]bool, len(s.ids))
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
			return nil // a tracked path now a directory is not seen
		}
		if i, ok := s.position(rel); ok {
			seen[i] = true
			info, err := d.Info()
			id, ok := fileID{}, false
			if err == nil {
				id, ok = fileIDOf(info)
			}
			// Unreadable (gone since it was listed) is changed too.
			changed[i] = !ok || id != s.ids[i]
			return nil
		}
		if _, ok := w.tracked[rel]; !ok {
			news = append(news, rel)
		}
		return nil
	})
	if err != nil {
		return nil, nil, false, false
	}
	if s == nil {
		return news, nil, true, true
	}
	for _, i := range s.racy {
		changed[i] = true
	}
	size := 0
	for i, p := range s.set.changing {
		if changed[i] || !seen[i] {
			check = append(check, p)
			size += len(p) + len(":(literal)") + 1
		}
	}
	if len(check) > maxCheckPaths || size > maxCheckBytes || (len(check) == len(s.ids) && len(check) > 0) {
		return news, nil, true, true
	}
	return news, check, false, true
}
