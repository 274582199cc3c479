package main

import "syscall"

// tmpfsMagic is the file system type of tmpfs (statfs(2)).
const tmpfsMagic = 0x01021994

// onTmpfs reports whether path is on tmpfs.
func onTmpfs(path string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(path, &st) == nil && st.Type == tmpfsMagic
}
