package sandbox

import (
	"math"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// closeInheritedOnExec marks every descriptor from 3 on close-on-exec, so
// a command gets only the descriptors it is given. Go opens its own that
// way, but one this process inherited (from whatever started the service:
// a log pipe, a socket) is not, and would otherwise reach the sandbox.
// Where close_range(2) cannot, each open descriptor is marked in turn.
func closeInheritedOnExec() {
	if unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	closeEachOnExec()
}

// closeEachOnExec marks each open descriptor from 3 on close-on-exec
// (close_range(2) is Linux 5.11 and later).
func closeEachOnExec() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
