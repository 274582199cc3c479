package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// sparesDirName holds the ready copies of bases (see Manager.Spares) and
// the workspaces being removed after Close, under the root.
const sparesDirName = ".spares"

// staleSpare is how old a directory under .spares must be before a new
// Manager removes it (left by a process that is gone).
const staleSpare = 10 * time.Minute

// ownerPrefix names a Manager's directory under .spares: its ready copies,
// and ownerLock, a file it holds locked (flock) while it lives, so another
// process sharing the root removes the directory only once its owner is
// gone, never a copy its owner may be taking.
const (
	ownerPrefix = "owner-"
	ownerLock   = "lock"
)

// spares is a Manager's ready copies of its bases and its background work.
type spares struct {
	mu    sync.Mutex
	ready map[string][]spare // base dir -> its ready copies
	busy  map[string]bool    // base dir -> a spare being made
	swept bool
	bg    sync.WaitGroup
	own   string   // this Manager's directory under the spares (ownerPrefix)
	lock  *os.File // ownerLock in own, held locked
}

// ownDir returns the Manager's directory under parent, made with its lock
// held when there is none (or it was removed underneath).
func (s *spares) ownDir(parent string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.own != "" {
		if _, err := os.Stat(filepath.Join(s.own, ownerLock)); err == nil {
			return s.own, nil
		}
		_ = s.lock.Close()
		s.own, s.lock = "", nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(parent, ownerPrefix)
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(filepath.Join(dir, ownerLock), os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		if err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			_ = f.Close()
		}
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	s.own, s.lock = dir, f
	return dir, nil
}

// A spare is a ready copy: its directory, and the snapshot of its tree
// taken when it was made (nil when none was).
type spare struct {
	dir  string
	snap *snapshot
}

// spareSettle bounds how long making a spare waits for the clock so no
// path of its snapshot is racy (see takeSnapshot).
const spareSettle = 50 * time.Millisecond

// spareTree and spareGit are a spare's work tree and repository, inside
// its directory.
func spareTree(dir string) string { return filepath.Join(dir, "tree") }
func spareGit(dir string) string  { g, _ := siblings(spareTree(dir)); return g }

// takeSpare moves a ready copy of b into place as w (its Dir and gitDir),
// reporting whether there was one, with the copy's snapshot. A copy that
// cannot be moved (removed by another process sharing the root) is
// dropped.
func (m *Manager) takeSpare(b *base, w *Workspace) (*snapshot, bool) {
	if m.Spares <= 0 {
		return nil, false
	}
	s := &m.spares
	for {
		s.mu.Lock()
		list := s.ready[b.dir]
		if len(list) == 0 {
			s.mu.Unlock()
			return nil, false
		}
		sp := list[len(list)-1]
		s.ready[b.dir] = list[:len(list)-1]
		s.mu.Unlock()
		err := os.Rename(spareTree(sp.dir), w.Dir)
		if err == nil {
			err = os.Rename(spareGit(sp.dir), w.gitDir)
		}
		if err == nil {
			_ = os.Remove(sp.dir)
			return sp.snap, true
		}
		_ = removeAll(w.Dir)
		m.removeLater(sp.dir)
	}
}

// refill makes, in the background, ready copies of b until Spares are
// kept, and forgets the copies of bases that are gone.
func (m *Manager) refill(root string, b *base) {
	if m.Spares <= 0 {
		return
	}
	s := &m.spares
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready == nil {
		s.ready, s.busy = map[string][]spare{}, map[string]bool{}
	}
	if !s.swept {
		s.swept = true
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			sweepStale(filepath.Join(root, sparesDirName))
		}()
	}
	for dir, list := range s.ready {
		if _, err := os.Stat(dir); err != nil {
			delete(s.ready, dir)
			for _, sp := range list {
				m.removeLaterLocked(sp.dir)
			}
		}
	}
	if s.busy[b.dir] || len(s.ready[b.dir]) >= m.Spares {
		return
	}
	s.busy[b.dir] = true
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		for {
			sp, ok := m.makeSpare(root, b)
			s.mu.Lock()
			if ok {
				s.ready[b.dir] = append(s.ready[b.dir], sp)
			}
			if !ok || len(s.ready[b.dir]) >= m.Spares {
				delete(s.busy, b.dir)
				s.mu.Unlock()
				return
			}
			s.mu.Unlock()
		}
	}()
}

// makeSpare materialises b in a new directory under the spares and takes
// the snapshot of its tree.
func (m *Manager) makeSpare(root string, b *base) (spare, bool) {
	parent, err := m.spares.ownDir(filepath.Join(root, sparesDirName))
	if err != nil {
		m.warn("could not make a ready copy of a repository", err)
		return spare{}, false
	}
	dir, err := os.MkdirTemp(parent, "spare-")
	if err != nil {
		m.warn("could not make a ready copy of a repository", err)
		return spare{}, false
	}
	w := &Workspace{Dir: spareTree(dir)}
	w.gitDir, _ = siblings(w.Dir)
	if err := b.materialize(w, m.Limits); err != nil {
		m.warn("could not make a ready copy of a repository", err)
		_ = os.RemoveAll(dir)
		return spare{}, false
	}
	return spare{dir: dir, snap: takeSnapshot(w.Dir, w.gitDir, m.trackedOf(b), spareSettle)}, true
}

// removeLater removes dir in the background (after renaming it away when
// it is not under the spares already, so it is gone from its place at
// once).
func (m *Manager) removeLater(dir string) {
	m.spares.mu.Lock()
	defer m.spares.mu.Unlock()
	m.removeLaterLocked(dir)
}

func (m *Manager) removeLaterLocked(dir string) {
	m.spares.bg.Add(1)
	go func() {
		defer m.spares.bg.Done()
		if err := os.RemoveAll(dir); err != nil {
			m.warn("could not remove a workspace in the background", err)
		}
	}()
}

// warn logs an error of background work (see Manager.Log).
func (m *Manager) warn(msg string, err error) {
	if m.Log != nil {
		m.Log.Warn(msg, "err", err)
	}
}

// sweepStale removes what processes that are gone left under the spares:
// old removals, and the directories of Managers whose lock nobody holds
// (an old one without its lock: its owner died making it).
func sweepStale(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, ownerPrefix) && !strings.HasPrefix(name, "gone-") {
			continue
		}
		if fi, err := e.Info(); err != nil || time.Since(fi.ModTime()) <= staleSpare {
			continue
		}
		dir := filepath.Join(parent, name)
		if strings.HasPrefix(name, ownerPrefix) {
			if f, err := os.Open(filepath.Join(dir, ownerLock)); err == nil {
				held := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil
				if !held {
					_ = os.RemoveAll(dir)
				}
				_ = f.Close()
				continue
			}
		}
		_ = os.RemoveAll(dir)
	}
}

// Wait waits for the Manager's background work (ready copies being made,
// removals) to finish. Call it before removing the root.
func (m *Manager) Wait() { m.spares.bg.Wait() }
