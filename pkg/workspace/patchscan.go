package workspace

import (
	"strconv"
	"strings"
)

// scannedFile is one file of a patch in the form git diff writes it, as
// scanPatch reads it.
type scannedFile struct {
	path string
	// kind is 'A' (added), 'D' (deleted) or 'M' (modified).
	kind  byte
	hunks []hunkRange
}

// hunkRange is a hunk header's positions and line counts.
type hunkRange struct{ oldPos, oldLines, newPos, newLines int64 }

// noNewline is the marker git diff writes after a line without its end.
const noNewline = `\ No newline at end of file`

// scanPatch reads diff when it is exactly in the form git diff writes a
// text patch, line by line: per file "diff --git a/P b/P" with the same
// plain path P twice (see plainPath), then optionally "new file mode" or
// "deleted file mode" (100644 or 100755), optionally an index line, and
// "--- a/P" (or /dev/null when added), "+++ b/P" (or /dev/null when
// deleted) and its hunks, each line counted by its header; only an empty
// file added or deleted has no hunk. Nothing else is read: no quoted or
// unprefixed name, no line git would read otherwise than go-gitdiff (a
// signed number, a short marker, an empty context line, garbage between
// files, a last line without its end). ok is false for anything else.
func scanPatch(diff string) (files []scannedFile, ok bool) {
	if !strings.HasSuffix(diff, "\n") {
		return nil, false
	}
	c := &lineCursor{s: diff}
	for !c.done() {
		path, ok := gitHeaderPath(c.line())
		if !ok {
			return nil, false
		}
		c.next()
		f := scannedFile{path: path, kind: 'M'}
		if m, ok := strings.CutPrefix(c.line(), "new file mode "); ok && regularMode(m) {
			f.kind = 'A'
			c.next()
		} else if m, ok := strings.CutPrefix(c.line(), "deleted file mode "); ok && regularMode(m) {
			f.kind = 'D'
			c.next()
		}
		if l, ok := strings.CutPrefix(c.line(), "index "); ok {
			if !indexLine(l, f.kind == 'M') {
				return nil, false
			}
			c.next()
		}
		if c.done() || strings.HasPrefix(c.line(), "diff --git ") {
			if f.kind == 'M' {
				return nil, false
			}
			files = append(files, f)
			continue
		}
		oldName, newName := "a/"+path, "b/"+path
		switch f.kind {
		case 'A':
			oldName = "/dev/null"
		case 'D':
			newName = "/dev/null"
		}
		if c.line() != "--- "+oldName {
			return nil, false
		}
		c.next()
		if c.line() != "+++ "+newName {
			return nil, false
		}
		c.next()
		for !c.done() && strings.HasPrefix(c.line(), "@@ -") {
			h, ok := scanHunk(c)
			if !ok {
				return nil, false
			}
			f.hunks = append(f.hunks, h)
		}
		if len(f.hunks) == 0 || !c.done() && !strings.HasPrefix(c.line(), "diff --git ") {
			return nil, false
		}
		files = append(files, f)
	}
	return files, len(files) > 0
}

// scanHunk reads the hunk at c: its header and exactly the lines it
// counts, each a context (' '), removed ('-') or added ('+') line or the
// noNewline marker after one.
func scanHunk(c *lineCursor) (hunkRange, bool) {
	h, ok := hunkHeader(c.line())
	if !ok {
		return hunkRange{}, false
	}
	c.next()
	old, added := h.oldLines, h.newLines
	afterLine := false
	for old > 0 || added > 0 {
		if c.done() {
			return hunkRange{}, false
		}
		l := c.line()
		switch {
		case l == noNewline && afterLine:
			afterLine = false
			c.next()
			continue
		case strings.HasPrefix(l, " "):
			old--
			added--
		case strings.HasPrefix(l, "-"):
			old--
		case strings.HasPrefix(l, "+"):
			added--
		default:
			return hunkRange{}, false
		}
		if old < 0 || added < 0 {
			return hunkRange{}, false
		}
		afterLine = true
		c.next()
	}
	if afterLine && !c.done() && c.line() == noNewline {
		c.next()
	}
	return h, true
}

// gitHeaderPath is P of "diff --git a/P b/P" with a plain path P.
func gitHeaderPath(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "diff --git a/")
	if !ok {
		return "", false
	}
	// A plain path has no space: the first one ends the old name.
	old, newName, ok := strings.Cut(rest, " b/")
	if !ok || old != newName || !plainPath(old) {
		return "", false
	}
	return old, true
}

// regularMode reports whether m is a regular file's mode as git writes
// it.
func regularMode(m string) bool { return m == "100644" || m == "100755" }

// indexLine reports whether l (after "index ") is "<hex>..<hex>", with
// " <mode>" of a regular file when withMode (a modified file's).
func indexLine(l string, withMode bool) bool {
	ids, mode, hasMode := strings.Cut(l, " ")
	if hasMode != withMode || hasMode && !regularMode(mode) {
		return false
	}
	oldID, newID, ok := strings.Cut(ids, "..")
	return ok && isHex(oldID) && isHex(newID)
}

// isHex reports whether s is an object name or a prefix of one.
func isHex(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// hunkHeader reads "@@ -o[,n] +o[,n] @@" with an optional " <context>",
// the numbers in plain decimal digits.
func hunkHeader(line string) (hunkRange, bool) {
	rest, ok := strings.CutPrefix(line, "@@ -")
	if !ok {
		return hunkRange{}, false
	}
	ranges, tail, ok := strings.Cut(rest, " @@")
	if !ok || tail != "" && !strings.HasPrefix(tail, " ") {
		return hunkRange{}, false
	}
	oldRange, newRange, ok := strings.Cut(ranges, " +")
	if !ok {
		return hunkRange{}, false
	}
	var h hunkRange
	var okOld, okNew bool
	h.oldPos, h.oldLines, okOld = hunkSide(oldRange)
	h.newPos, h.newLines, okNew = hunkSide(newRange)
	return h, okOld && okNew
}

// hunkSide reads "pos[,lines]" (lines 1 when left out).
func hunkSide(s string) (pos, lines int64, ok bool) {
	p, n, hasLines := strings.Cut(s, ",")
	pos, ok = decimal(p)
	lines = 1
	if hasLines {
		var okN bool
		lines, okN = decimal(n)
		ok = ok && okN
	}
	return pos, lines, ok
}

// decimal reads 1 to 9 decimal digits.
func decimal(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 9 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// lineCursor walks the lines of a text that ends with a newline.
type lineCursor struct {
	s   string
	pos int
	end int // of the current line (its newline), once found
}

func (c *lineCursor) done() bool { return c.pos >= len(c.s) }

// line is the current line without its newline ("" at the end).
func (c *lineCursor) line() string {
	if c.done() {
		return ""
	}
	if c.end <= c.pos {
		c.end = c.pos + strings.IndexByte(c.s[c.pos:], '\n')
	}
	return c.s[c.pos:c.end]
}

func (c *lineCursor) next() {
	c.line()
	c.pos = c.end + 1
}
