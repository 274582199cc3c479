package sandbox

import (
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The fallback for kernels without close_range marks an inherited
// descriptor close-on-exec.
func TestCloseEachOnExec(t *testing.T) {
	fd, err := syscall.Open(filepath.Join(t.TempDir(), "f"), syscall.O_CREAT|syscall.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Close(fd) }()
	if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC != 0 {
		t.Fatalf("flags %d, %v: want a descriptor without close-on-exec", flags, err)
	}
	closeEachOnExec()
	if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Fatalf("flags %d, %v: not close-on-exec", flags, err)
	}
}
