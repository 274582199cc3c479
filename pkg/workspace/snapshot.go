package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// fileID is what lstat reports of a file that any write to it changes
// (on tmpfs, any but a write through a memory mapping: see snapshot): a
// write, truncation, chmod, link or unlink sets its change time (which
// no one can set back: utime sets the modification time and, with it,
// the change time to now), and a file replaced by another has another
// inode or device.
type fileID struct {
	dev, ino     uint64
	mode         uint32
	size         int64
	mtime, ctime int64 // nanoseconds
}

// A snapshot is the identity (fileID) of each tracked path of a work tree
// as it was made from its base, taken before anyone else could reach the
// tree, so a tracked path whose identity is unchanged still holds what
// the base's index holds and git need not read it (see scan).
//
// Change times are kept by the filesystem's clock, which may be coarse
// (a tick of some milliseconds): a write in the same tick as the last
// write the snapshot saw could leave a file's identity unchanged. So
// after the snapshot a marker is written beside the tree and its change
// time M read; any later write has a change time of at least M. A path
// whose recorded change time is not before M is racy: git reads it on
// every change, as if it were changed (git's own index treats entries
// written in the tick of the index file the same way).
//
// On a filesystem that does not move a file's times on every write
// (tmpfs: a write through a shared memory mapping whose page was read
// first changes the content and no time), the snapshot is trusted only
// until a process is given the tree (Workspace.Command): before that,
// the tree is written only by this process and git, with write,
// truncate, rename, link, unlink and chmod, which move the change time
// on every filesystem. So the builder's change after a tool loop that
// ran no command, and the critic's read-back of the applied patch (before any
// check runs), keep the snapshot on tmpfs; after a command, git reads
// every tracked path.
type snapshot struct {
	set  *trackedSet // the tracked paths it was taken of
	ids  []fileID    // of set.changing, in its order
	racy []int       // positions of the racy paths
	// everyWrite: the tree's filesystem moves the change time on every
	// write to a file, also through a memory mapping (tracksEveryWrite).
	everyWrite bool
}

// errNoFileID: the platform's stat is not read (see fileIDOf).
var errNoFileID = errors.New("no file identity on this platform")

// markerName is the marker written (and removed) in the work tree's
// repository directory, on the tree's filesystem.
const markerName = "codali-snapshot-mark"

// takeSnapshot takes the snapshot of the tracked paths t of tree, just
// made; gitDir is its repository, beside it. With settle, racy paths are
// made not racy by marking again once the clock moved on, for at most
// settle (only while no one else can write the tree: a spare being made).
// It is nil, and every change reads all tracked files, when there is
// nothing to take it of or any doubt: no tracked list, a tracked
// .gitattributes (which makes what git reads depend on more than a
// file), a tracked path that is not a file or a link in the new tree (a
// submodule, a link the copy left out), a platform whose stat is not
// read, or a marker that cannot be written.
func takeSnapshot(tree, gitDir string, t *trackedSet, settle time.Duration) *snapshot {
	if t == nil || t.attributes {
		return nil
	}
	s := &snapshot{set: t, ids: make([]fileID, len(t.changing)), everyWrite: tracksEveryWrite(tree)}
	for i, p := range t.changing {
		info, err := os.Lstat(filepath.Join(tree, filepath.FromSlash(p)))
		if err != nil || (!info.Mode().IsRegular() && info.Mode()&fs.ModeSymlink == 0) {
			return nil
		}
		id, ok := fileIDOf(info)
		if !ok {
			return nil
		}
		s.ids[i] = id
	}
	if !s.mark(func() (int64, error) { return markTime(gitDir) }, settle) {
		return nil
	}
	return s
}

// mark sets the racy paths: those whose change time is not before the
// time markTime gives. With settle, while some are and settle has not
// passed, it marks again (a millisecond later: the next tick of a coarse
// clock). False when markTime fails.
func (s *snapshot) mark(markTime func() (int64, error), settle time.Duration) bool {
	deadline := time.Now().Add(settle)
	for {
		m, err := markTime()
		if err != nil {
			return false
		}
		s.racy = s.racy[:0]
		for i, id := range s.ids {
			if id.ctime >= m {
				s.racy = append(s.racy, i)
			}
		}
		if len(s.racy) == 0 || !time.Now().Before(deadline) {
			return true
		}
		time.Sleep(time.Millisecond)
	}
}

// position is the position of the tracked path rel in s (false when s
// is nil or rel is not one of its paths).
func (s *snapshot) position(rel string) (int, bool) {
	if s == nil {
		return 0, false
	}
	i, ok := s.set.position[rel]
	return i, ok
}

// markTime writes the marker in dir and returns its change time. The
// marker's change time is read, then changed (chmod) and read again: on
// a filesystem whose timestamps are fine-grained once read, the second
// is the clock's time now, not its last coarse tick.
func markTime(dir string) (int64, error) {
	p := filepath.Join(dir, markerName)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	defer func() { _ = os.Remove(p) }()
	_, err = f.Stat()
	if err == nil {
		err = f.Chmod(0o400)
	}
	var info fs.FileInfo
	if err == nil {
		info, err = f.Stat()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	id, ok := fileIDOf(info)
	if !ok {
		return 0, errNoFileID
	}
	return id.ctime, nil
}
