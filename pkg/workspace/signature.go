package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// signature hashes what copyTree would copy from root — every entry's
// path, type, permissions, size, modification and change times, inode and
// link target — without reading file contents. It applies copyTree's
// limits, so a repository over them fails here, before any copy. An
// edit changes the change time even when the modification time is put
// back, so equal signatures mean equal trees in practice. On a Linux
// filesystem that does not move the change time on every write (tmpfs,
// where a write through a shared memory mapping moves no time; see
// signsContents) each file's content is hashed too.
func signature(root string, lim Limits) (string, error) {
	lim = lim.withDefaults()
	h := sha256.New()
	contents := signsContents(root)
	entries, total := 0, int64(0)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if rel != "." && IsGitName(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if rel != "." {
			if entries++; entries > lim.MaxFiles {
				return fmt.Errorf("%w: the repository has more than %d entries", ErrTooLarge, lim.MaxFiles)
			}
		}
		link := ""
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			if info.Size() > lim.MaxFileBytes {
				return fmt.Errorf("%w: %s has %d bytes (limit %d per file)", ErrTooLarge, rel, info.Size(), lim.MaxFileBytes)
			}
			if total += info.Size(); total > lim.MaxBytes {
				return fmt.Errorf("%w: the repository has more than %d bytes", ErrTooLarge, lim.MaxBytes)
			}
		}
		sum := ""
		if contents && info.Mode().IsRegular() {
			if sum, err = contentSum(p, lim.MaxFileBytes); err != nil {
				return err
			}
		}
		fmt.Fprintf(h, "%q %o %d %d %s %q %s\n", rel, info.Mode(), info.Size(), info.ModTime().UnixNano(), statExtra(info), link, sum)
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// contentSum is the SHA-256 of the file p's content (at most limit+1
// bytes of it: a file growing past the limit fails its copy), in hex.
func contentSum(p string, limit int64) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, limit+1)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
