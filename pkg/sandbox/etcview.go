package sandbox

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// etcAllow are the pieces of /etc a sandbox sees: name service and TLS
// roots (for commands granted the network), dynamic linker cache, time
// zone, and the alternatives links /usr/bin points into.
var etcAllow = []string{
	"alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
	"ssl", "ca-certificates", "pki", "resolv.conf", "hosts",
	"nsswitch.conf", "host.conf", "gai.conf", "services", "protocols",
	"passwd", "group", "localtime", "timezone", "mime.types",
}

// Bounds on what a view copies: an /etc piece beyond them is a host
// misconfiguration, reported rather than copied.
const (
	etcMaxEntries = 20000
	etcMaxBytes   = 64 << 20
	etcMaxDepth   = 8
)

// etcRecheck is how long a view is used before the host's /etc is looked
// at again: a change there reaches the commands started after that.
const etcRecheck = 2 * time.Second

// etcViews keeps the sandboxes' /etc: a copy of the allowed pieces of the
// host's (etcAllow), made in a private directory and bound read-only as
// each sandbox's /etc. One bind mount costs a sandbox far less than a
// tmpfs filled with copies at each start. Only what every user of the
// host may read is copied: a directory or file closed to others (such as
// /etc/ssl/private, with the host's private keys) is left out. When the
// host's pieces change a new view is made; an old one is removed once no
// command uses it. It is safe for concurrent use.
type etcViews struct {
	// root is the host directory copied ("/etc"; another in tests).
	root string
	// temp is where the private directory is made ("": see makeBase).
	temp string
	now  func() time.Time
	// maxEntries and maxBytes bound a copy (0: etcMaxEntries, etcMaxBytes).
	maxEntries int
	maxBytes   int64

	mu      sync.Mutex
	base    string   // the private directory; "" until the first view
	lock    *os.File // held while base is in use (see makeBase)
	cur     *etcView
	inUse   int       // commands using a view, the current one or older
	checked time.Time // when cur was last compared with the host
	made    int
	closed  bool
}

// etcView is one copy and the number of commands using it.
type etcView struct {
	dir   string
	stamp [sha256.Size]byte
	refs  int
}

// errViewsClosed is returned once the sandbox is closed.
var errViewsClosed = errors.New("the sandbox is closed")

// etcViewError is a failure to provide a view of /etc to a command.
type etcViewError struct{ err error }

func (e *etcViewError) Error() string { return e.err.Error() }
func (e *etcViewError) Unwrap() error { return e.err }

// acquire returns the directory of a view of the host's /etc as it is
// now (within etcRecheck), and the function to call once the command
// that binds it has ended.
func (v *etcViews) acquire() (string, func(), error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return "", nil, errViewsClosed
	}
	now := v.now()
	if v.cur == nil || now.Sub(v.checked) >= etcRecheck || now.Before(v.checked) {
		stamp, err := stampTree(v.root)
		if err != nil {
			return "", nil, fmt.Errorf("could not read %s: %w", v.root, err)
		}
		if v.cur == nil || stamp != v.cur.stamp {
			view, err := v.make(stamp)
			switch {
			case err != nil && v.cur == nil:
				return "", nil, err
			case err != nil:
				// The host's earlier /etc serves until a copy of the
				// new one can be made (tried again after etcRecheck):
				// better than refusing commands while /dev/shm is full.
			default:
				old := v.cur
				v.cur = view
				if old != nil && old.refs == 0 {
					_ = os.RemoveAll(old.dir)
				}
			}
		}
		v.checked = now
	}
	view := v.cur
	view.refs++
	v.inUse++
	var once sync.Once
	return view.dir, func() { once.Do(func() { v.release(view) }) }, nil
}

// release ends one use of view, removing it when it is no longer current
// and nothing uses it.
func (v *etcViews) release(view *etcView) {
	v.mu.Lock()
	defer v.mu.Unlock()
	view.refs--
	v.inUse--
	if view.refs == 0 && (view != v.cur || v.closed) {
		_ = os.RemoveAll(view.dir)
		if v.closed && view == v.cur {
			v.cur = nil
		}
	}
	if v.closed && v.inUse == 0 {
		v.removeBase()
	}
}

// close removes the views (those in use, the current one or older, go
// when their last command ends).
func (v *etcViews) close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.closed = true
	if v.cur != nil && v.cur.refs == 0 {
		_ = os.RemoveAll(v.cur.dir)
		v.cur = nil
	}
	if v.inUse == 0 {
		v.removeBase()
	}
}

// removeBase removes the private directory (under mu).
func (v *etcViews) removeBase() {
	if v.base == "" {
		return
	}
	_ = os.RemoveAll(v.base)
	_ = v.lock.Close()
	v.base, v.lock = "", nil
}

// make copies the host's pieces into a new view (under mu).
func (v *etcViews) make(stamp [sha256.Size]byte) (*etcView, error) {
	if v.base == "" {
		base, lock, err := makeBase(v.temp)
		if err != nil {
			return nil, fmt.Errorf("could not make the sandbox's /etc: %w", err)
		}
		v.base, v.lock = base, lock
	}
	v.made++
	dir := filepath.Join(v.base, strconv.Itoa(v.made))
	c := &copier{maxEntries: v.maxEntries, maxBytes: v.maxBytes}
	if c.maxEntries == 0 {
		c.maxEntries = etcMaxEntries
	}
	if c.maxBytes == 0 {
		c.maxBytes = etcMaxBytes
	}
	if err := c.copyEtc(v.root, dir); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("could not make the sandbox's /etc: %w", err)
	}
	return &etcView{dir: dir, stamp: stamp}, nil
}

// copyEtc copies the allowed pieces of root into dst. A piece that is a
// link into /usr (which sandboxes bind) stays a link; any other link at
// the top is followed.
func (c *copier) copyEtc(root, dst string) error {
	if err := os.Mkdir(dst, 0o755); err != nil {
		return err
	}
	for _, name := range etcAllow {
		src := filepath.Join(root, name)
		fi, err := os.Lstat(src)
		if err != nil {
			continue
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if target, ok := linkIntoUsr(src); ok {
				if err := os.Symlink(target, filepath.Join(dst, name)); err != nil {
					return err
				}
				continue
			}
			// Followed: what it leads to is copied as if it were here.
			if src, err = filepath.EvalSymlinks(src); err != nil {
				continue
			}
			if fi, err = os.Lstat(src); err != nil {
				continue
			}
		}
		if err := c.copy(src, filepath.Join(dst, name), fi, 0); err != nil {
			return err
		}
	}
	return nil
}

// copier copies trees within the bounds.
type copier struct {
	maxEntries int
	maxBytes   int64
	entries    int
	bytes      int64
}

// copy copies src (described by fi, not followed if a link) to dst: a
// file or directory only when others may read it, a link as it is,
// nothing else.
func (c *copier) copy(src, dst string, fi fs.FileInfo, depth int) error {
	c.entries++
	if c.entries > c.maxEntries {
		return fmt.Errorf("%s: more than %d entries to copy", src, c.maxEntries)
	}
	mode := fi.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return skipGone(err)
		}
		return os.Symlink(target, dst)
	case mode.IsDir():
		if mode.Perm()&0o005 != 0o005 || depth >= etcMaxDepth {
			return nil
		}
		return c.copyDir(src, dst, depth)
	case mode.IsRegular():
		if mode.Perm()&0o004 == 0 {
			return nil
		}
		c.bytes += fi.Size()
		if c.bytes > c.maxBytes {
			return fmt.Errorf("%s: more than %d bytes to copy", src, c.maxBytes)
		}
		return copyFile(src, dst, c.maxBytes)
	}
	return nil // never a device, a fifo or a socket
}

func (c *copier) copyDir(src, dst string, depth int) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return skipGone(err)
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue // gone since the listing
		}
		if err := c.copy(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()), fi, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// skipGone is nil for err saying that what was to be copied is no longer
// there as it was listed (removed or replaced on the host meanwhile): it
// is left out, and the next look at the host makes a new view.
func skipGone(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EINVAL) {
		return nil
	}
	return err
}

// copyFile copies a regular file's content; one that is no longer a
// regular file when opened (replaced meanwhile) is skipped.
func copyFile(src, dst string, maxBytes int64) error {
	in, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer func() { _ = in.Close() }()
	if fi, err := in.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.LimitReader(in, maxBytes)); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// stampTree sums what the allowed pieces of root are now: for each entry
// (links followed at the top, as copyEtc does, and below as links) its
// name, kind, size, inode and change times. A copy made when the stamp
// was the same has the same content, unless a file was rewritten within
// its timestamps' resolution.
func stampTree(root string) ([sha256.Size]byte, error) {
	h := sha256.New()
	var walk func(p string, depth int) error
	entries := 0
	add := func(p string, fi fs.FileInfo) {
		var b [8]byte
		_, _ = io.WriteString(h, p)
		binary.LittleEndian.PutUint64(b[:], uint64(fi.Mode()))
		h.Write(b[:])
		binary.LittleEndian.PutUint64(b[:], uint64(fi.Size()))
		h.Write(b[:])
		binary.LittleEndian.PutUint64(b[:], uint64(fi.ModTime().UnixNano()))
		h.Write(b[:])
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			binary.LittleEndian.PutUint64(b[:], st.Ino)
			h.Write(b[:])
			binary.LittleEndian.PutUint64(b[:], uint64(st.Ctim.Nano()))
			h.Write(b[:])
		}
	}
	walk = func(p string, depth int) error {
		entries++
		if entries > etcMaxEntries {
			return fmt.Errorf("%s: more than %d entries", root, etcMaxEntries)
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil // gone: the stamp says so by its absence
		}
		add(p, fi)
		if depth == 0 && fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			_, _ = io.WriteString(h, target)
			if fi, err = os.Stat(p); err != nil {
				return nil
			}
			add(p, fi)
		}
		// Not into a directory the copy leaves out (closed to others):
		// a change there (a rotated private key) would make a copy
		// identical to the last. Its own mode and times still count.
		if !fi.IsDir() || depth >= etcMaxDepth || fi.Mode().Perm()&0o005 != 0o005 {
			return nil
		}
		names, err := readNames(p)
		if err != nil {
			return nil
		}
		for _, n := range names {
			if err := walk(filepath.Join(p, n), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	for _, name := range etcAllow {
		if err := walk(filepath.Join(root, name), 0); err != nil {
			return [sha256.Size]byte{}, err
		}
	}
	var sum [sha256.Size]byte
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// readNames lists a directory's entries, sorted.
func readNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}

// linkIntoUsr returns the target of the symbolic link p when it resolves
// inside /usr (which the sandbox binds), so the link works there too.
func linkIntoUsr(p string) (string, bool) {
	target, err := os.Readlink(p)
	if err != nil {
		return "", false
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil || !strings.HasPrefix(real, "/usr/") {
		return "", false
	}
	return target, true
}
