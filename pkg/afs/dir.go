package afs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A Dir is a .context directory to read and write.
type Dir struct {
	// Path is the .context directory itself.
	Path string
	// NoLinks refuses symbolic links: Path, its subdirectories and the
	// files read or written must not be links (an error wrapping ErrLink
	// names the first; nothing is read or written through it), and the
	// files must be regular files (ErrNotRegular). Set it for
	// a .context/ that processes the system does not trust can change,
	// such as a workspace's, which the model's commands write: through a
	// link the system would read or overwrite a file outside it. The check
	// holds while nothing else changes the directory (in a workspace,
	// between tool calls: no process of a command outlives it).
	NoLinks bool
}

// full is the path of p (slash-separated, relative to Path).
func (d Dir) full(p string) string { return filepath.Join(d.Path, filepath.FromSlash(p)) }

// links returns an error wrapping ErrLink when NoLinks is set and Path or
// the subdirectory of one of paths (slash-separated, relative to Path) is
// a symbolic link; missing ones are fine.
func (d Dir) links(paths ...string) error {
	if !d.NoLinks {
		return nil
	}
	isLink := func(p string) bool {
		fi, err := os.Lstat(d.full(p))
		return err == nil && fi.Mode()&fs.ModeSymlink != 0
	}
	if isLink(".") {
		return fmt.Errorf("%w: %s", ErrLink, filepath.Base(d.Path))
	}
	var seen []string
	for _, p := range paths {
		top, _, ok := strings.Cut(p, "/")
		if !ok {
			continue
		}
		if !contains(seen, top) {
			seen = append(seen, top)
			if isLink(top) {
				return fmt.Errorf("%w: %s", ErrLink, top)
			}
		}
	}
	return nil
}

// open opens the file at p with flag. With NoLinks the file must be a
// regular file: a link is not followed (an error wrapping ErrLink), and
// anything else (a fifo, which would block the open or the read, a
// device, a directory) is opened without blocking and refused (an error
// wrapping ErrNotRegular).
func (d Dir) open(p string, flag int) (*os.File, error) {
	fh, _, err := d.openSized(p, flag)
	return fh, err
}

// openSized is open that also returns the size of the file as opened
// (with NoLinks; 0 otherwise).
func (d Dir) openSized(p string, flag int) (*os.File, int64, error) {
	full := d.full(p)
	if !d.NoLinks {
		fh, err := os.OpenFile(full, flag, 0o644)
		return fh, 0, err
	}
	if oNoFollow == 0 {
		// No O_NOFOLLOW here: refuse a link before opening (O_TRUNC
		// would cut its target) and again after (below).
		if li, lerr := os.Lstat(full); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			return nil, 0, fmt.Errorf("%w: %s", ErrLink, p)
		}
	}
	fh, err := os.OpenFile(full, flag|oNoFollow|oNonBlock, 0o644)
	if err != nil {
		// Say why when it is the file's kind (a fifo without a reader
		// fails a non-blocking open for writing).
		if fi, lerr := os.Lstat(full); lerr == nil && !errors.Is(err, fs.ErrNotExist) {
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				return nil, 0, fmt.Errorf("%w: %s", ErrLink, p)
			case !fi.Mode().IsRegular():
				return nil, 0, fmt.Errorf("%w: %s is a %s", ErrNotRegular, p, kind(fi.Mode()))
			}
		}
		return nil, 0, err
	}
	fi, err := fh.Stat()
	if err == nil && oNoFollow == 0 {
		// Without O_NOFOLLOW, a link made since the check above is
		// refused before any byte is read or written.
		if li, lerr := os.Lstat(full); lerr != nil || li.Mode()&fs.ModeSymlink != 0 {
			_ = fh.Close()
			return nil, 0, fmt.Errorf("%w: %s", ErrLink, p)
		}
	}
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%w: %s is a %s", ErrNotRegular, p, kind(fi.Mode()))
	}
	if err != nil {
		_ = fh.Close()
		return nil, 0, err
	}
	return fh, fi.Size(), nil
}

// kind names a file mode's type for an error.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// MaxFileBytes bounds a file of a .context/ read with Dir.NoLinks: the
// protocol's files are kilobytes, a day's history a few megabytes at
// most, while a model's command may write a file up to the sandbox's
// file size limit (1 GiB by default) there, which the service would
// otherwise read whole into memory at every tool call.
const MaxFileBytes = 16 << 20

// MaxReadBytes bounds what one Dir.Read with NoLinks reads in all, and
// MaxDirFiles the files it reads of one directory (hivemind, history):
// many files, each under MaxFileBytes, would add up.
const (
	MaxReadBytes = 64 << 20
	MaxDirFiles  = 1000
)

// readFile reads the file at p; with NoLinks, one larger than
// MaxFileBytes or than *left (when left is not nil; what is read is
// taken from it) is not read (ErrTooLarge).
func (d Dir) readFile(p string, left *int64) ([]byte, error) {
	if !d.NoLinks {
		return os.ReadFile(d.full(p))
	}
	limit := int64(MaxFileBytes)
	if left != nil && *left < limit {
		limit = max(*left, 0)
	}
	fh, size, err := d.openSized(p, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	if size > limit {
		_ = fh.Close()
		return nil, fmt.Errorf("%w: %s is %d bytes (at most %d, of %d per file and %d per read of .context)", ErrTooLarge, p, size, limit, MaxFileBytes, MaxReadBytes)
	}
	// Sized as opened, as os.ReadFile does: one read for the content, one
	// for the end; never more than the bound, should it grow meanwhile.
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, err = buf.ReadFrom(io.LimitReader(fh, limit+1))
	if err == nil && int64(buf.Len()) > limit {
		err = fmt.Errorf("%w: %s grew past %d bytes", ErrTooLarge, p, limit)
	}
	if left != nil {
		*left -= int64(buf.Len())
	}
	return buf.Bytes(), errors.Join(err, fh.Close())
}

// writeCreating opens the file at p with flag, writes data and closes it.
// Only when the open finds no directory does it create the directories
// and open again, so writing into an existing directory costs no stat
// calls.
func (d Dir) writeCreating(p string, flag int, data []byte) error {
	fh, err := d.open(p, flag)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(d.full(p)), 0o755); err != nil {
			return err
		}
		fh, err = d.open(p, flag)
	}
	if err != nil {
		return err
	}
	_, werr := fh.Write(data)
	return errors.Join(werr, fh.Close())
}
