package afs

import (
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
	// names the first; nothing is read or written through it). Set it for
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

// open opens the file at p with flag; with NoLinks it is not followed
// when it is a link (an error wrapping ErrLink).
func (d Dir) open(p string, flag int) (*os.File, error) {
	full := d.full(p)
	if d.NoLinks {
		flag |= oNoFollow
	}
	fh, err := os.OpenFile(full, flag, 0o644)
	if err != nil && d.NoLinks && !errors.Is(err, fs.ErrNotExist) {
		if fi, lerr := os.Lstat(full); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%w: %s", ErrLink, p)
		}
	}
	if err == nil && oNoFollow == 0 && d.NoLinks {
		// No O_NOFOLLOW here: refuse a link after the fact, before any
		// byte is read or written.
		if fi, lerr := os.Lstat(full); lerr != nil || fi.Mode()&fs.ModeSymlink != 0 {
			_ = fh.Close()
			return nil, fmt.Errorf("%w: %s", ErrLink, p)
		}
	}
	return fh, err
}

// readFile reads the file at p.
func (d Dir) readFile(p string) ([]byte, error) {
	fh, err := d.open(p, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(fh)
	return data, errors.Join(err, fh.Close())
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
