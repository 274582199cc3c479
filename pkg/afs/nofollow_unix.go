//go:build unix

package afs

import "syscall"

// oNoFollow makes an open fail on a symbolic link; oNonBlock makes the
// open of a fifo return at once.
const (
	oNoFollow = syscall.O_NOFOLLOW
	oNonBlock = syscall.O_NONBLOCK
)
