//go:build !linux

package sandbox

import "errors"

// setRlimits is not available here: limits are set by the prlimit program.
func setRlimits(int, []rlimit) error {
	return errors.New("setting another process's limits is only supported on Linux")
}
