//go:build !linux

package workspace

import "io/fs"

// statExtra adds nothing where the change time is not read: signatures
// then rely on size and modification time.
func statExtra(fs.FileInfo) string { return "" }

// fileIDOf is false where the change time is not read: no snapshot is
// taken, and git reads every tracked file (see snapshot).
func fileIDOf(fs.FileInfo) (fileID, bool) { return fileID{}, false }

// tracksEveryWrite is false where the change time is not read.
func tracksEveryWrite(string) bool { return false }

// signsContents is false here: the signature is of stat data, as the
// modification time and size are all the platform's stat is read for
// (a write through a memory mapping that moves no time is tmpfs's, on
// Linux).
func signsContents(string) bool { return false }
