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
