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

// Bounds of a patch applied in this process (a larger one is left to
// git): maxInProcessDiff its bytes, maxInProcessFile a file it patches,
// maxInProcessBytes all of them, and maxInProcessLines the lines of the
// patch and of the files it patches, all together. Reading and patching
// holds some hundred bytes per line, so they keep it to a few MiB.
const (
	maxInProcessDiff  = 1 << 20
	maxInProcessFile  = 4 << 20
	maxInProcessBytes = 8 << 20
	maxInProcessLines = 1 << 16
)

// maxNameBytes bounds a name and maxPathBytes a whole path (NAME_MAX and
// PATH_MAX of Linux filesystems): a longer one is left to git.
const (
	maxNameBytes = 255
	maxPathBytes = 4096
)

// textEdit is one file of a patch applied in this process: its path, the
// content it gets (nil: removed), whether it is executable, and its line
// counts.
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

// applyText applies diff in this process when it is exactly as git diff
// writes a plain text patch (see planText): regular files added (mode
// 100644 or 100755), modified (no mode change) or deleted, under clean
// paths outside .git whose directories are real directories of the work
// tree, each hunk matching where git places it, within the bounds above,
// on a tree as prepared with no .gitattributes. That is what models
// write, and it spares a git process per applied change. Anything else
// returns ok false with nothing written, and git applies the diff as
// before.
//
// The new content of every file is computed before the first write, so a
// diff is either left to git untouched or applied here. A modified file
// is replaced (a new file renamed over it, with git's permissions), never
// written through a link it may share.
func (w *Workspace) applyText(diff string) (events.Change, bool, error) {
	edits, ok := w.planText(diff)
	if !ok {
		return events.Change{}, false, nil
	}
	var ch events.Change
	for _, e := range edits {
		ch.Files = append(ch.Files, events.FileChange{Path: e.path})
		ch.Added += int(e.added)
		ch.Removed += int(e.removed)
	}
	// As git: every deletion (and the directories it empties) first, then
	// the writes, so a directory emptied and written again is made anew.
	for _, deletions := range []bool{true, false} {
		for _, e := range edits {
			if (e.content == nil) != deletions {
				continue
			}
			if err := e.write(w.Dir); err != nil {
				return events.Change{}, true, fmt.Errorf("%w: %s: %w", ErrApply, e.path, err)
			}
		}
	}
	return ch, true, nil
}

// planText parses diff and computes every file's new content; ok is false
// when the diff is not one applyText applies: not exactly in git diff's
// form (see scanPatch), over the bounds, a tree git may read through a
// .gitattributes (see plainTree), or a hunk git would place elsewhere
// (see placedAsGit).
func (w *Workspace) planText(diff string) ([]textEdit, bool) {
	lines := strings.Count(diff, "\n")
	if len(diff) > maxInProcessDiff || lines > maxInProcessLines || !w.plainTree() {
		return nil, false
	}
	scanned, ok := scanPatch(diff)
	if !ok {
		return nil, false
	}
	files, _, err := gitdiff.Parse(strings.NewReader(diff))
	if err != nil || len(files) != len(scanned) {
		return nil, false
	}
	edits := make([]textEdit, 0, len(files))
	seen := make(map[string]bool, len(files))
	b := budget{bytes: maxInProcessBytes, lines: maxInProcessLines - int64(lines)}
	for i, f := range files {
		e, ok := w.planFile(scanned[i], f, &b)
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

// plainTree reports whether the work tree is still as prepared, with no
// .gitattributes among its paths: git apply converts what it reads and
// writes by attributes (line ends, ident, encodings), this process does
// not. A tree a process was given, or patched already (a patch left to
// git may have added one), may have one.
func (w *Workspace) plainTree() bool {
	return w.trackedSet != nil && !w.trackedAttributes && !w.commanded.Load() && !w.patched
}

// budget is what the files of a patch may still hold in this process.
type budget struct{ bytes, lines int64 }

// planFile plans the edit of one file of the patch, which scanPatch read
// as s and go-gitdiff as f.
func (w *Workspace) planFile(s scannedFile, f *gitdiff.File, b *budget) (textEdit, bool) {
	if f.IsBinary || f.IsCopy || f.IsRename || f.BinaryFragment != nil || !sameReading(s, f) {
		return textEdit{}, false
	}
	e := textEdit{path: s.path, exec: f.NewMode == 0o100755}
	e.abs = filepath.Join(w.Dir, filepath.FromSlash(e.path))
	if len(e.abs) >= maxPathBytes {
		return textEdit{}, false
	}
	old, mode, exists, ok := w.readPlain(e.path, e.abs, min(maxInProcessFile, b.bytes))
	if !ok || exists == f.IsNew {
		return textEdit{}, false
	}
	oldLines := int64(bytes.Count(old, []byte("\n")))
	if len(old) > 0 && old[len(old)-1] != '\n' {
		oldLines++
	}
	b.bytes -= int64(len(old))
	if b.lines -= oldLines; b.lines < 0 || !placedAsGit(f.TextFragments, oldLines) {
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

// sameReading reports whether go-gitdiff read the file as scanPatch did:
// the same path and kind (a regular file added or deleted, or modified
// without a mode change) and the same hunks.
func sameReading(s scannedFile, f *gitdiff.File) bool {
	var ok bool
	switch s.kind {
	case 'A':
		ok = f.IsNew && !f.IsDelete && f.OldName == "" && f.NewName == s.path && regularFileMode(f.NewMode)
	case 'D':
		ok = f.IsDelete && !f.IsNew && f.NewName == "" && f.OldName == s.path && regularFileMode(f.OldMode)
	case 'M':
		// (An old mode alone is the index line's: no mode change.)
		ok = !f.IsNew && !f.IsDelete && f.OldName == s.path && f.NewName == s.path && f.NewMode == 0 &&
			(f.OldMode == 0 || regularFileMode(f.OldMode))
	}
	if !ok || len(f.TextFragments) != len(s.hunks) {
		return false
	}
	for i, frag := range f.TextFragments {
		if (hunkRange{frag.OldPosition, frag.OldLines, frag.NewPosition, frag.NewLines}) != s.hunks[i] {
			return false
		}
	}
	return true
}

// regularFileMode reports whether m is git's mode of a regular file.
func regularFileMode(m os.FileMode) bool { return m == 0o100644 || m == 0o100755 }

// placedAsGit reports whether git places every hunk of a file of
// oldLines lines where go-gitdiff does, its old position: git tries a
// hunk first at its new position in the file as patched so far (which
// must then be the old one moved by the hunks before it), a hunk at
// position 0 or 1 only at the start, and one without trailing context
// only at the end. go-gitdiff has checked that it matches there exactly,
// so git applies it there too.
func placedAsGit(frags []*gitdiff.TextFragment, oldLines int64) bool {
	var moved int64
	for i, fr := range frags {
		if (fr.OldPosition == 0) != (fr.OldLines == 0) || (fr.NewPosition == 0) != (fr.NewLines == 0) {
			return false
		}
		start, at := max(fr.OldPosition-1, 0), max(fr.NewPosition-1, 0)
		switch {
		case at != start+moved,
			fr.OldPosition <= 1 && at != 0,
			fr.TrailingContext == 0 && (i != len(frags)-1 || start+fr.OldLines != oldLines):
			return false
		}
		moved += fr.NewLines - fr.OldLines
	}
	return true
}

// plainPath reports whether p is a path applyText takes: clean, relative,
// inside the work tree and outside .git, not a .gitattributes (see
// plainTree), without spaces, control characters, backslashes or quotes
// (git quotes some of those in its headers, and a space makes a header's
// two names ambiguous), and with no name longer than a filesystem takes
// (a write that fails after others is left to git instead).
func plainPath(p string) bool {
	c, err := Clean(p)
	if err != nil || c != p || c == "." || inGit(c) || strings.EqualFold(path.Base(c), ".gitattributes") {
		return false
	}
	for part := range strings.SplitSeq(c, "/") {
		if len(part) > maxNameBytes {
			return false
		}
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
