package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// setRlimits sets rl on the process pid (prlimit(2)).
func setRlimits(pid int, rl []rlimit) error {
	for _, r := range rl {
		lim := unix.Rlimit{Cur: r.soft, Max: r.max}
		if err := unix.Prlimit(pid, r.resource, &lim, nil); err != nil {
			return fmt.Errorf("could not set the %s limit of process %d: %w", r.name, pid, err)
		}
	}
	return nil
}
