package workspace

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/codali-dev/codali/pkg/events"
)

// maxInProcessFile bounds a file patched in this process, and
// maxInProcessBytes all the files of one patch; a larger patch is left to
// git.
const (
	maxInProcessFile  = 16 << 20
	maxInProcessBytes = 64 << 20
)

// textEdit is one file of a patch applied in this process: its path, the
// content it gets (nil: removed), and the mode of a new file.
type textEdit struct {
	path    string
	abs     string
	content []byte
	// exec: the file gets execute permission (git's mode 100755).
	exec    bool
	exists  bool
	added   int64
	removed int64
}

// applyText applies diff in this process when every file in it is a
// plain text change git would apply exactly as written: a regular file
// added (mode 100644 or 100755), modified (no mode change) or deleted,
// under a clean path outside .git whose directories are real directories
// of the work tree, with hunks that match the file where they say. That
// is what models write, and it spares a git process per applied change.
// Anything else (renames, copies, links, binary patches, mode changes,
// hunks that only apply at an offset, unusual names, large files) returns
// ok false with nothing written, and git applies the diff as before.
//
// The new content of every file is computed before the first write, so a
// diff is either left to git untouched or applied here. A modified file
// is replaced (a new file renamed over it, with its mode), as git does,
// never written through a link it may share.
func (w *Workspace) applyText(diff string) (events.Change, bool, error) {
	edits, ok := w.planText(diff)
	if !ok {
		return events.Change{}, false, nil
	}
	var ch events.Change
	for _, e := range edits {
		if err := e.write(w.Dir); err != nil {
			return events.Change{}, true, fmt.Errorf("%w: %s: %w", ErrApply, e.path, err)
		}
		ch.Files = append(ch.Files, events.FileChange{Path: e.path})
		ch.Added += int(e.added)
		ch.Removed += int(e.removed)
	}
	return ch, true, nil
}

// planText parses diff and computes every file's new content; ok is false
// when the diff is not one applyText applies.
func (w *Workspace) planText(diff string) ([]textEdit, bool) {
	files, _, err := gitdiff.Parse(strings.NewReader(diff))
	if err != nil || len(files) == 0 || strings.Count("\n"+diff, "\ndiff --git ") != len(files) {
		return nil, false
	}
	edits := make([]textEdit, 0, len(files))
	seen := make(map[string]bool, len(files))
	budget := int64(maxInProcessBytes)
	for _, f := range files {
		e, ok := w.planFile("\n"+diff, f, &budget)
		if !ok || seen[e.path] {
			return nil, false
		}
		seen[e.path] = true
		edits = append(edits, e)
	}
	// A file where another one's directory is (or was): git's to judge.
	for _, e := range edits {
		for dir := path.Dir(e.path); dir != "."; dir = path.Dir(dir) {
			if seen[dir] {
				return nil, false
			}
		}
	}
	return edits, true
}

// planFile plans one file's edit; budget is what the patch's files may
// still read.
func (w *Workspace) planFile(diff string, f *gitdiff.File, budget *int64) (textEdit, bool) {
	if f.IsBinary || f.IsCopy || f.IsRename || f.BinaryFragment != nil {
		return textEdit{}, false
	}
	var e textEdit
	switch {
	case f.IsNew && !f.IsDelete && f.OldName == "":
		if f.NewMode != 0o100644 && f.NewMode != 0o100755 {
			return textEdit{}, false
		}
		e.path, e.exec = f.NewName, f.NewMode == 0o100755
	case f.IsDelete && !f.IsNew && f.NewName == "":
		e.path = f.OldName
	case !f.IsNew && !f.IsDelete && f.OldName == f.NewName && f.NewMode == 0 && len(f.TextFragments) > 0 &&
		(f.OldMode == 0 || f.OldMode == 0o100644 || f.OldMode == 0o100755):
		// (An old mode alone is the index line's: no mode change.)
		e.path = f.NewName
	default:
		return textEdit{}, false
	}
	// Only git's own format, whose header names the path plainly: a
	// traditional diff's names keep their a/ and b/ here, which git
	// strips.
	if !plainPath(e.path) || !strings.Contains(diff, "\ndiff --git a/"+e.path+" b/"+e.path+"\n") {
		return textEdit{}, false
	}
	e.abs = filepath.Join(w.Dir, filepath.FromSlash(e.path))
	old, mode, exists, ok := w.readPlain(e.path, e.abs, *budget)
	*budget -= int64(len(old))
	if !ok || exists == f.IsNew {
		return textEdit{}, false
	}
	e.exists = exists
	if exists {
		e.exec = mode&0o100 != 0 // git's test for mode 100755
	}
	var out bytes.Buffer
	if err := gitdiff.Apply(&out, bytes.NewReader(old), f); err != nil {
		return textEdit{}, false
	}
	for _, frag := range f.TextFragments {
		e.added += frag.LinesAdded
		e.removed += frag.LinesDeleted
	}
	if f.IsDelete {
		if out.Len() != 0 {
			return textEdit{}, false // git applies a deletion only of the whole content
		}
		return e, true
	}
	e.content = out.Bytes()
	if e.content == nil {
		e.content = []byte{}
	}
	return e, true
}

// plainPath reports whether p is a path applyText takes: clean, relative,
// inside the work tree and outside .git, without spaces, control
// characters, backslashes or quotes (git quotes some of those in its
// headers, and a space makes a header's two names ambiguous).
func plainPath(p string) bool {
	c, err := Clean(p)
	if err != nil || c != p || c == "." || inGit(c) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if b := p[i]; b <= ' ' || b == 0x7f || b == '\\' || b == '"' {
			return false
		}
	}
	return true
}

// readPlain reads the file at rel when every directory on its way is a
// real directory of the work tree and it is a regular file of at most
// maxInProcessFile bytes, nor over budget; exists is false when it (or a
// directory on its way) is not there. ok is false for anything else: a
// link, a special file, a file where a directory should be.
func (w *Workspace) readPlain(rel, abs string, budget int64) (content []byte, mode os.FileMode, exists, ok bool) {
	dir := w.Dir
	parts := strings.Split(rel, "/")
	for _, part := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, 0, false, true
		case err != nil || !fi.IsDir():
			return nil, 0, false, false
		}
	}
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0, false, true
	case err != nil || !fi.Mode().IsRegular() || fi.Size() > min(maxInProcessFile, budget):
		return nil, 0, false, false
	}
	f, err := os.OpenFile(abs, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, 0, false, false
	}
	defer func() { _ = f.Close() }()
	content = make([]byte, 0, fi.Size())
	buf := bytes.NewBuffer(content)
	if _, err := buf.ReadFrom(f); err != nil || int64(buf.Len()) != fi.Size() {
		return nil, 0, false, false
	}
	return buf.Bytes(), fi.Mode(), true, true
}

// write makes the edit in the work tree at root. Files get the
// permissions git gives them: 0666, or 0777 when executable, less the
// umask.
func (e textEdit) write(root string) error {
	if e.content == nil {
		if err := os.Remove(e.abs); err != nil {
			return err
		}
		// git removes the directories a deletion leaves empty.
		for dir := filepath.Dir(e.abs); dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)); dir = filepath.Dir(dir) {
			if os.Remove(dir) != nil {
				break
			}
		}
		return nil
	}
	perm := os.FileMode(0o666)
	if e.exec {
		perm = 0o777
	}
	if !e.exists {
		if err := os.MkdirAll(filepath.Dir(e.abs), 0o777); err != nil {
			return err
		}
		// A new file replaces nothing, a link included.
		return writeNew(e.abs, perm, e.content)
	}
	// Replaced, not written through: a new file renamed over it.
	var tmp string
	for try := 0; ; try++ {
		tmp = filepath.Join(filepath.Dir(e.abs), ".codali-apply-"+rand.Text()[:12])
		err := writeNew(tmp, perm, e.content)
		if err == nil {
			break
		}
		_ = os.Remove(tmp)
		if !errors.Is(err, fs.ErrExist) || try == 3 {
			return err
		}
	}
	if err := os.Rename(tmp, e.abs); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// writeNew creates the file p, which must not exist, with content.
func writeNew(p string, perm os.FileMode, content []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, perm)
	if err != nil {
		return err
	}
	_, werr := f.Write(content)
	return errors.Join(werr, f.Close())
}
