package workspace

import (
	"fmt"
	"io/fs"
	"syscall"
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
