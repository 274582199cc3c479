//go:build unix

package workspace

import "syscall"

// noFollow makes an open fail on a symbolic link.
const noFollow = syscall.O_NOFOLLOW
