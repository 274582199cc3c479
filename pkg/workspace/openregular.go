package workspace

import (
	"fmt"
	"os"
)

// OpenRegular opens the file at p for reading and returns it with its
// metadata as opened; anything but a regular file (a directory, a fifo,
// a socket, a device) is refused with an error wrapping ErrNotRegular.
// The open never blocks: a fifo a command left in the workspace would
// otherwise hold the caller until some process writes to it.
func OpenRegular(p string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		_ = f.Close()
		if fi.IsDir() {
			return nil, nil, fmt.Errorf("%w: %s is a directory", ErrNotRegular, p)
		}
		return nil, nil, fmt.Errorf("%w: %s is a %s", ErrNotRegular, p, fi.Mode().Type())
	}
	return f, fi, nil
}
