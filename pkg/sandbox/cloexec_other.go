//go:build !linux

package sandbox

// closeInheritedOnExec does nothing where there is no bubblewrap.
func closeInheritedOnExec() {}
