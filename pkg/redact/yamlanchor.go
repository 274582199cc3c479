package redact

import "strings"

// The value a YAML anchor sets (see yamlalias.go), read from the text
// after the anchor's name, past a tag (&pw !!str):
//
//   - a scalar on the anchor's line: plain, up to a comment, and in a
//     flow collection ([&pw hunter2, b], {a: &pw hunter2}) up to the
//     next ",", "]" or "}"; continued on the lines after it indented
//     deeper than the anchor's parent (a plain scalar folded over lines)
//     up to a line that is a comment, a mapping entry or a list item;
//     quoted, inside its quotes, over the lines after it while the
//     quote is left open (as quotedLinesRule reads them);
//   - a block scalar (&pw |, &pw >-, &pw !!binary |): the lines after it
//     indented deeper than its parent, the parent being the key before
//     the anchor on its line, else the list item's dash, else the line
//     above (an anchor alone on its line);
//   - nothing (&pw, or a comment): the value on the lines after it, as
//     yamlSecretNextRule reads a value under a name with none: a
//     scalar, or a list's scalar items; a mapping holds no secret
//     itself, and its lines are read on for other anchors.
//
// An anchor on a document's start (--- &pw |) is a document's root,
// which no alias of its document can name: its block is kept, but a
// scalar on its line is redacted (text that is no valid YAML may name
// it); "---x:" starts no document.

// anchoredValue returns the spans of the value the anchor a sets in s
// and where the text it read ends (the anchors before it are inside the
// value); ln reads the anchor's line once for all the anchors on it.
func anchoredValue(s string, a yamlToken, ln *anchorLine) ([][]int, int) {
	ln.read(s, a.at)
	if ln.docStart {
		// A document's root: no alias of its document names it, but in
		// text that is no valid YAML one may; its line's scalar is
		// redacted, no lines after it (a root block would be the rest of
		// the text).
		i := skipBlanks(s, a.end, ln.end)
		if v := strings.TrimRight(s[i:ln.end], " \t\r"); v != "" && v[0] != '#' && !isBlockIndicator(v) {
			return [][]int{{i, i + len(v)}}, ln.end
		}
		return nil, ln.end
	}
	col := ln.parentColumn(a.at)
	flow := ln.depthAt(s, a.at) > 0
	le := ln.end
	i := skipBlanks(s, a.end, le)
	if i < le && s[i] == '!' { // a tag
		for i < le && s[i] != ' ' && s[i] != '\t' {
			i++
		}
		i = skipBlanks(s, i, le)
	}
	w := wordEnd(s, i, le)
	after := skipBlanks(s, w, le)
	last := after == le || s[after] == '\r' || s[after] == '#'
	switch {
	case i == le || s[i] == '\r' || s[i] == '#':
		if ln.colon >= 0 && ln.colon < a.at {
			col = compactListCol(s, le, col) // x: &pw / - hunter2
		}
		spans, end := nextLinesValue(s, le, col, false)
		if spans == nil {
			return nil, le // a mapping: its lines may set other anchors
		}
		return spans, end
	case s[i] == '"' || s[i] == '\'':
		return quotedAnchored(s, i, le, col)
	case last && isBlockIndicator(s[i:w]):
		return blockLines(s, le, col)
	}
	return plainAnchored(s, i, le, col, flow)
}

// wordEnd returns where the word at s[i] ends: at a space, a tab or a
// carriage return, or at end.
func wordEnd(s string, i, end int) int {
	for i < end && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' {
		i++
	}
	return i
}

// anchorLine is the line of the anchors read last, read once however
// many anchors it holds: its bounds, whether it starts a document, where
// its content starts past the indentation and the list items' dashes,
// the column of the last of those dashes (or one less than the
// indentation), its first colon after the dashes (-1: none), and the
// flow collections open up to where it has been read.
type anchorLine struct {
	start, end, content, dashCol, colon int
	docStart                            bool
	flowLine
}

// read makes ln the line holding s[at], unless it is already.
func (ln *anchorLine) read(s string, at int) {
	if ln.end > 0 && ln.start <= at && at < ln.end {
		return
	}
	ls := strings.LastIndexByte(s[:at], '\n') + 1
	le := lineEnd(s, at)
	*ln = anchorLine{start: ls, end: le, docStart: strings.HasPrefix(s[ls:le], "---") &&
		(ls+3 == le || strings.IndexByte(" \t\r", s[ls+3]) >= 0)}
	i := skipBlanks(s, ls, ln.end)
	ln.dashCol = i - ls - 1
	for i < ln.end && s[i] == '-' && (i+1 == ln.end || s[i+1] == ' ' || s[i+1] == '\t') {
		ln.dashCol = i - ls
		i = skipBlanks(s, i+1, ln.end)
	}
	ln.content, ln.colon = i, strings.IndexByte(s[i:ln.end], ':')
	if ln.colon >= 0 {
		ln.colon += i
	}
	ln.flowLine = flowLine{start: ls, at: ls}
}

// parentColumn returns the column of the node holding the value anchored
// at s[at]: the key's before it on its line, else the dash's of the list
// item it is in, else one less than the line's indentation (the anchor
// starts the value of the line above).
func (ln *anchorLine) parentColumn(at int) int {
	if ln.colon >= 0 && ln.colon < at {
		return ln.content - ln.start
	}
	return ln.dashCol
}

// skipBlanks returns the index of the first byte of s[i:end] that is not
// a space or a tab, or end.
func skipBlanks(s string, i, end int) int {
	for i < end && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// cutComment returns a plain value without a comment (" #" on) and the
// spaces before it.
func cutComment(v string) string {
	if j := strings.Index(v, " #"); j >= 0 {
		v = v[:j]
	} else if j := strings.Index(v, "\t#"); j >= 0 {
		v = v[:j]
	}
	return strings.TrimRight(v, " \t")
}

// quotedAnchored returns the spans of a quoted scalar opening at s[i] on
// the line ending at le, and where it ends.
func quotedAnchored(s string, i, le, col int) ([][]int, int) {
	k, closed := quotedEnd(s[:le], i+1, s[i])
	if closed {
		return [][]int{{i + 1, k}}, k
	}
	spans := [][]int{{i + 1, i + len(strings.TrimRight(s[i:le], " \t\r"))}}
	rest, end := quotedRest(s, le, col, s[i])
	return append(spans, rest...), end
}

// plainAnchored returns the spans of a plain scalar starting at s[i] on
// the line ending at le, and where it ends: the line's value and its
// continuation lines, in a flow collection (flow) up to a flow
// indicator.
func plainAnchored(s string, i, le, col int, flow bool) ([][]int, int) {
	v, cut := plainPart(s[i:le], flow)
	spans := [][]int{{i, i + len(v)}}
	if cut {
		return spans, i + len(v) // the line may set more anchors after it
	}
	end := deeperLinesWhile(s, le, col, func(start, indent int, line string) bool {
		if cut || strings.ContainsRune(line[:indent], '\t') {
			return false
		}
		var part string
		part, cut = plainPart(line[indent:], flow)
		if part == "" || part[0] == '#' || isYAMLStructure(part) {
			return false
		}
		spans = append(spans, []int{start + indent, start + indent + len(part)})
		return true
	})
	return spans, end
}

// plainPart returns a plain scalar's part on one line: up to a comment,
// in a flow collection (flow) up to a flow indicator; cut reports that
// something ended it there, so no line after continues it.
func plainPart(v string, flow bool) (part string, cut bool) {
	v = strings.TrimRight(v, " \t\r")
	if flow {
		if j := strings.IndexAny(v, ",]}"); j >= 0 {
			v, cut = v[:j], true
		}
	}
	part = cutComment(v)
	return part, cut || len(part) < len(v)
}

// flowLine tracks the flow collections open on a line: the line's
// start, how far it has been read, the depth of "[" and "{" open there
// and the quote open.
type flowLine struct {
	start, at, depth int
	quote            byte
}

// depthAt returns how many flow collections are open at s[i], reading
// on from the last call (s[i] is on the line, at or after the last i).
func (f *flowLine) depthAt(s string, i int) int {
	ls := f.start
	for ; f.at < i; f.at++ {
		c := s[f.at]
		switch {
		case f.quote != 0:
			if c == f.quote {
				f.quote = 0
			} else if c == '\\' && f.quote == '"' {
				f.at++
			}
		case (c == '"' || c == '\'') && (f.at == ls || strings.IndexByte(" \t[{,:", s[f.at-1]) >= 0):
			f.quote = c
		case c == '[' || c == '{':
			f.depth++
		case (c == ']' || c == '}') && f.depth > 0:
			f.depth--
		}
	}
	return f.depth
}
