package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// etcBasePrefix names the private directories of the views.
const etcBasePrefix = "codali-sandbox-etc-"

// etcLockName is the file in a private directory its process holds locked
// while it lives: a directory whose lock can be taken was left by a
// process that ended without removing it.
const etcLockName = ".lock"

// makeBase makes the private directory of the views, and holds its lock.
// It is made in temp, or when temp is "", in memory (/dev/shm) where
// there is a writable one, else in the temporary directory: making the
// hundreds of small files of a view on a disk file system can take the
// better part of a second. Directories left there by ended processes are
// removed first, so a crashing service does not fill its memory.
func makeBase(temp string) (string, *os.File, error) {
	dirs := []string{temp}
	if temp == "" {
		dirs = []string{"/dev/shm", os.TempDir()}
	}
	var errs []error
	for _, dir := range dirs {
		sweepBases(dir)
		base, lock, err := newBase(dir)
		if err == nil {
			return base, lock, nil
		}
		errs = append(errs, err)
	}
	return "", nil, errors.Join(errs...)
}

// newBase makes a private directory in dir with its lock held. The lock
// file gets its name only once locked, so a sweep never takes a
// directory being made.
func newBase(dir string) (string, *os.File, error) {
	base, err := os.MkdirTemp(dir, etcBasePrefix)
	if err != nil {
		return "", nil, err
	}
	tmp := filepath.Join(base, etcLockName+".new")
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		if err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
			err = os.Rename(tmp, filepath.Join(base, etcLockName))
		}
		if err != nil {
			_ = f.Close()
		}
	}
	if err != nil {
		_ = os.RemoveAll(base)
		return "", nil, fmt.Errorf("could not lock %s: %w", base, err)
	}
	return base, f, nil
}

// sweepBases removes the private directories in dir that this user's
// ended processes left (their lock is free). Anything else is left alone:
// another user's, one without a lock file, a link.
func sweepBases(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), etcBasePrefix) || !e.IsDir() {
			continue
		}
		base := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(base)
		if err != nil || !fi.IsDir() {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
			continue
		}
		f, err := os.OpenFile(filepath.Join(base, etcLockName), os.O_RDWR|syscall.O_NOFOLLOW, 0)
		if errors.Is(err, os.ErrNotExist) && abandoned(base, fi) {
			_ = os.RemoveAll(base)
			continue
		}
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			_ = os.RemoveAll(base)
		}
		_ = f.Close()
	}
}

// etcAbandoned is how long a private directory without its lock file may
// be in the making: one whose process was killed between making it and
// naming its lock is swept once that long has passed since either.
const etcAbandoned = time.Minute

// abandoned reports whether base, a private directory without a lock
// file (fi its Lstat), was left half made: it holds nothing but the lock
// file not yet named, and has not changed for etcAbandoned (newBase
// names the lock a moment after making the directory).
func abandoned(base string, fi os.FileInfo) bool {
	if time.Since(fi.ModTime()) < etcAbandoned {
		return false
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() != etcLockName+".new" || !e.Type().IsRegular() {
			return false
		}
	}
	return true
}
