package afs

import "errors"

// Errors of the package; match them with errors.Is.
var (
	// ErrShape: a file or history line does not have the protocol's shape.
	ErrShape = errors.New("afs: shape check failed")
	// ErrProtected: the file policy table forbids the access.
	ErrProtected = errors.New("afs: protected by the file policy table")
	// ErrRead: a .context/ file could not be read or decoded.
	ErrRead = errors.New("afs: cannot read .context file")
	// ErrLink: a path of a .context/ read or written with Dir.NoLinks is
	// a symbolic link.
	ErrLink = errors.New("afs: symbolic link in .context, not followed")
	// ErrNotRegular: a file of a .context/ read or written with
	// Dir.NoLinks is not a regular file (a fifo, a device, a directory).
	ErrNotRegular = errors.New("afs: not a regular file in .context, not used")
	// ErrTooLarge: a file of a .context/ read with Dir.NoLinks is larger
	// than MaxFileBytes; it is not read.
	ErrTooLarge = errors.New("afs: .context file too large, not read")
)
