package proctest

import "syscall"

// sysProcAttr makes the kernel kill the child when the test process dies
// without running its cleanups (a test binary's timeout panics), so no
// server outlives the test holding its ports.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
