//go:build !linux

package proctest

import "syscall"

// sysProcAttr: elsewhere than on Linux a child outlives a test process that
// dies without running its cleanups.
func sysProcAttr() *syscall.SysProcAttr { return nil }
