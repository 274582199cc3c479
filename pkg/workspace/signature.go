package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// signature hashes what copyTree would copy from root — every entry's
// path, type, permissions, size, modification and change times, inode and
// link target — without reading file contents. It applies copyTree's
// limits, so a repository over them fails here, before any copy. An
// edit changes the change time even when the modification time is put
// back, so equal signatures mean equal trees in practice.
func signature(root string, lim Limits) (string, error) {
	lim = lim.withDefaults()
	h := sha256.New()
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
		fmt.Fprintf(h, "%q %o %d %d %s %q\n", rel, info.Mode(), info.Size(), info.ModTime().UnixNano(), statExtra(info), link)
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
