//go:build unix

package workspace

import "syscall"

// noFollow makes an open fail on a symbolic link.
const noFollow = syscall.O_NOFOLLOW

// nonBlock makes an open of a fifo return at once.
const nonBlock = syscall.O_NONBLOCK
