// Package workspace materialises a repository for one run, attempt and
// role in its own directory, keeps a git baseline so the change can be taken
// as a unified diff, applies a diff to a fresh copy, resolves tool paths
// safely inside the workspace, and runs commands with a timeout.
package workspace

import "errors"

// Sentinel errors.
var (
	// ErrPathEscapes: a path is absolute, climbs out with "..", or goes
	// through a symlink that leaves the workspace.
	ErrPathEscapes = errors.New("path escapes the workspace")
	// ErrRepo: the repository cannot be read or cloned.
	ErrRepo = errors.New("repository unavailable")
	// ErrNotAllowed: a repository path lies outside the allowed roots.
	ErrNotAllowed = errors.New("repository path not allowed")
	// ErrClone: cloning a repository URL failed; it wraps ErrRepo, but the
	// cause may be a network outage, so callers may retry.
	ErrClone = errors.New("clone failed")
	// ErrGit: a git operation failed.
	ErrGit = errors.New("git operation failed")
	// ErrApply: a diff does not apply.
	ErrApply = errors.New("change does not apply")
	// ErrNotRegular: a path that must be a regular file is something
	// else (a directory, a fifo, a socket, a device).
	ErrNotRegular = errors.New("not a regular file")
)

// ErrTooLarge: a repository or a change exceeds a workspace limit (files,
// bytes, bytes per file, diff bytes). Nothing is cut silently.
var ErrTooLarge = errors.New("over a workspace limit")
