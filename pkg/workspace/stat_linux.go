package workspace

import (
	"fmt"
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// statExtra is what a signature adds from the platform's stat: the
// change time (which no one can set back) and the inode.
func statExtra(info fs.FileInfo) string {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("c%d.%d i%d d%d", st.Ctim.Sec, st.Ctim.Nsec, st.Ino, st.Dev)
	}
	return ""
}

// fileIDOf is info's identity (see fileID); false where the platform's
// stat is not read.
func fileIDOf(info fs.FileInfo) (fileID, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	// The conversions are for the architectures whose fields are
	// narrower.
	return fileID{
		dev: uint64(st.Dev), ino: uint64(st.Ino), mode: uint32(st.Mode), size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}, true
}

// tracksEveryWrite reports whether dir lies on a filesystem that moves a
// file's change time on every write to its content, also one through a
// shared memory mapping (it is told of the mapping's first write to each
// page): ext2/3/4, XFS, Btrfs. tmpfs is not one of them: a page mapped
// for reading is then written with no fault and no time moves. Nor is a
// filesystem not known to be one (overlayfs, FUSE, network filesystems).
func tracksEveryWrite(dir string) bool {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return false
	}
	switch uint32(st.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC:
		return true
	}
	return false
}

// signsContents reports whether a local repository's signature must hash
// its files' contents: its filesystem may leave a file's times as they
// were on a write (see tracksEveryWrite).
func signsContents(dir string) bool { return !tracksEveryWrite(dir) }
