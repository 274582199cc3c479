// Package sandbox runs one command at a time in a sandbox: on Linux a
// bubblewrap (bwrap) container with new user, pid, ipc, uts, cgroup and
// (unless granted) network namespaces; a fresh /proc, /dev and /tmp; the
// host's toolchains read-only; the command's directory and the caller's
// per-run cache directories the only writable places; nothing else of the
// host visible (no home directory, no credentials, no configuration or
// data directories). Resource limits (CPU seconds, address space,
// processes, file size, open files) are set with prlimit, output is
// bounded, and the whole process tree is killed when the command returns
// or times out.
//
// Mode "none" runs commands directly (still with the caller's reduced environment,
// limits when prlimit is installed, and process-group kill) and must be chosen explicitly; callers
// are expected to say so wherever results are reported. The package knows
// nothing of Codali's phases.
package sandbox
