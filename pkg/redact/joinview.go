package redact

import (
	"slices"
	"strings"
)

// Joined lines. A shell command continued on the next line
// (mysql -uroot \ / -pSECRET, PowerShell's backtick, cmd's ^), a YAML
// scalar folded over lines (a plain one, run: psql --password / SECRET,
// or a folded block's lines, run: > / psql --password / SECRET) and a
// YAML complex key (? password / : hunter2) put on two lines what the
// line rules read on one. The joined view of a text reads them joined: a
// continuation character ending a line after a space, with the line
// break, as one space; the line break and indentation between two
// lines of a folded scalar as one space; a complex key under a secret-like name and the
// ": value" line after it at the same column as "password: value". The
// whole-text rules read it as the decoded views (see escape.go), and
// the line rules read each of its lines holding a join (joinedLineSpans).
// A key over several lines (? |) is not joined.

// joinedView returns s with its continued lines and secret complex keys
// joined, or nil when it has none. joins are the view's indexes where
// something was joined.
func joinedView(s string) *escView {
	if !mayJoin(s) {
		return nil
	}
	var b strings.Builder
	var v *escView // made at the first join
	joined := false
	emit := func(from, to int) { // s[from:to] as it is
		if !joined {
			return
		}
		b.WriteString(s[from:to])
		for i := from; i < to; i++ {
			v.from = append(v.from, int32(i))
			v.to = append(v.to, int32(i+1))
		}
	}
	// join starts the view at the first join: the text before it as it
	// is.
	join := func(at int) {
		if !joined {
			joined = true
			b.Grow(len(s))
			v = &escView{from: make([]int32, 0, len(s)), to: make([]int32, 0, len(s))}
			emit(0, at)
		}
	}
	// space writes the one space a join reads in place of s[from:to]
	// (a line break and what continues it).
	space := func(from, to int) {
		b.WriteByte(' ')
		v.from = append(v.from, int32(from))
		v.to = append(v.to, int32(to))
		v.joins = append(v.joins, len(v.from)-1)
	}
	// A YAML scalar folded over lines: a plain one (key: a / b) or a
	// folded block's lines (key: > / a / b), at lines indented deeper
	// than foldCol; -1: none.
	foldCol, foldBlock, inPlain := -1, false, false
	for ls := 0; ls < len(s); {
		le := lineEnd(s, ls)
		next := min(le+1, len(s))
		line := strings.TrimRight(s[ls:le], "\r")
		ind := indentAt(line, 0)
		blank := ind == len(line)
		switch {
		case inPlain:
		case foldBlock && (blank || ind > foldCol):
		default:
			foldCol, foldBlock = -1, false
			if col, v, ok := keyLineValue(line); ok {
				switch {
				case isFoldedIndicator(v):
					foldCol, foldBlock = col, true
				case v != "" && strings.IndexByte("\"'|>[{&*!#%@`", v[0]) < 0:
					foldCol = col
				}
			}
		}
		inPlain = false
		folds := foldCol >= 0 && !blank && (!foldBlock || ind > foldCol)
		if ns := nextFoldedLine(s, le, foldCol, foldBlock); folds && ns >= 0 && continuationAt(s, ls, le) < 0 {
			e := ls + len(strings.TrimRight(line, " \t"))
			join(ls)
			emit(ls, e)
			space(e, ns)
			inPlain = !foldBlock
			ls = ns
			continue
		}
		if !foldBlock {
			foldCol = -1
		}
		if q, k, ke, colon := complexSecretKey(s, ls, le); k >= 0 {
			join(ls)
			emit(ls, q)                    // the indentation and an item's dash
			emit(k, ke)                    // the key
			emit(colon, lineEnd(s, colon)) // ": value"
			v.joins = append(v.joins, len(v.from)-1)
			next = lineEnd(s, colon)
			if next < len(s) {
				emit(next, next+1)
				next++
			}
		} else if c := continuationAt(s, ls, le); c >= 0 {
			join(ls)
			emit(ls, c)
			space(c, next)
		} else {
			emit(ls, next)
		}
		ls = next
	}
	if !joined {
		return nil
	}
	v.text = b.String()
	return v
}

// mayJoin reports whether s may hold lines to join: two lines at least.
func mayJoin(s string) bool {
	j := strings.IndexByte(s, '\n')
	return j >= 0 && j < len(s)-1
}

// continuationAt returns where the continuation character ending the
// line s[ls:le] stands (a "\", "`" or "^" after a space or a tab, before
// an optional CR) when a line follows, or -1.
func continuationAt(s string, ls, le int) int {
	e := le
	if e > ls && s[e-1] == '\r' {
		e--
	}
	if le+1 >= len(s) || e-ls < 2 || strings.IndexByte("\\`^", s[e-1]) < 0 || s[e-2] != ' ' && s[e-2] != '\t' {
		return -1
	}
	return e - 1
}

// complexSecretKey reads the line s[ls:le] as a YAML complex key ("? "
// and a key, after the indentation and an item's dash) naming a secret,
// followed (blank and comment lines between) by a line with ":" at the
// "?"'s column: it returns where the "?" is, where the key starts (past
// tags and an anchor) and ends and where that ":" is, or -1s.
func complexSecretKey(s string, ls, le int) (q, k, ke, colon int) {
	line := strings.TrimRight(s[ls:le], "\r")
	col := indentAt(line, 0)
	if col+1 < len(line) && line[col] == '-' && (line[col+1] == ' ' || line[col+1] == '\t') {
		col += 1 + indentAt(line, col+1)
	}
	if col+2 > len(line) || line[col] != '?' || line[col+1] != ' ' && line[col+1] != '\t' {
		return -1, -1, -1, -1
	}
	kb := col + 1 + indentAt(line, col+1)
	// Tags and an anchor before the key (? !!str password, ? &k token).
	for kb < len(line) && (line[kb] == '!' || line[kb] == '&') {
		e := kb
		for e < len(line) && line[e] != ' ' && line[e] != '\t' {
			e++
		}
		kb = e + indentAt(line, e)
	}
	key := line[kb:]
	if j := strings.Index(key, " #"); j >= 0 {
		key = key[:j]
	}
	key = strings.TrimRight(key, " \t")
	if key == "" || !isSecretKey(strings.Trim(key, `"'`)) || strings.ContainsAny(key, ":{}[],") {
		return -1, -1, -1, -1
	}
	for at := le + 1; at < len(s); at = lineEnd(s, at) + 1 {
		ind := indentAt(s, at)
		if blankLineAt(s, at) || s[at+ind] == '#' {
			continue
		}
		if ind == col && s[at+ind] == ':' && (at+ind+1 == len(s) || strings.IndexByte(" \t\r\n", s[at+ind+1]) >= 0) {
			return ls + col, ls + kb, ls + kb + len(key), at + ind
		}
		break
	}
	return -1, -1, -1, -1
}

// labeledSpan is a span to replace with its rule's marker.
type labeledSpan struct {
	at    []int
	label string
}

// joinedLineSpans returns the spans the line rules find in the lines of
// s's joined view that hold a join, mapped back to s: each rule reads
// such a line as it is, so a rule's span is not hidden by another's.
func joinedLineSpans(rules []rule, sc *hintScanner, v *escView) []labeledSpan {
	var out []labeledSpan
	last := -1 // the end of the last line read
	for _, j := range v.joins {
		if j < last {
			continue
		}
		ls := strings.LastIndexByte(v.text[:j], '\n') + 1
		le := min(lineEnd(v.text, j)+1, len(v.text))
		last = le
		line := v.text[ls:le]
		m := textHints(sc, line)
		for i := range rules {
			ru := &rules[i]
			if ru.wholeText || !sc.may(i, m) || ru.pre != nil && !ru.pre(line) {
				continue
			}
			for _, l := range ru.spans(line) {
				if l[0] < 0 || l[0] >= l[1] {
					continue
				}
				if sp := v.span(ls+l[0], ls+l[1]); sp != nil {
					out = append(out, labeledSpan{at: sp, label: ru.label})
				}
			}
		}
	}
	return out
}

// applyLabeled replaces the spans in s with their markers (overlapping
// spans as one, with the first one's), but spans already redacted.
func applyLabeled(s string, spans []labeledSpan) (string, bool) {
	if len(spans) == 0 {
		return s, false
	}
	slices.SortStableFunc(spans, func(a, b labeledSpan) int { return a.at[0] - b.at[0] })
	var out strings.Builder
	last, replaced := 0, false
	for _, sp := range spans {
		start, end := max(sp.at[0], last), sp.at[1]
		if start >= end || strings.HasPrefix(s[start:end], "[REDACTED:") {
			continue
		}
		out.WriteString(s[last:start])
		out.WriteString(marker(sp.label))
		last, replaced = end, true
	}
	if !replaced {
		return s, false
	}
	out.WriteString(s[last:])
	return out.String(), true
}

// keyLineValue reads a line as a YAML mapping entry (key: value, after
// the indentation and an item's dash): the key's column and the value
// without a comment.
func keyLineValue(line string) (col int, value string, ok bool) {
	col = indentAt(line, 0)
	if col+1 < len(line) && line[col] == '-' && (line[col+1] == ' ' || line[col+1] == '\t') {
		col += 1 + indentAt(line, col+1)
	}
	e := col
	for e < len(line) && isNameByte(line[e]) {
		e++
	}
	if e == col || e >= len(line) || line[e] != ':' || e+1 < len(line) && line[e+1] != ' ' && line[e+1] != '\t' {
		return 0, "", false
	}
	value = strings.TrimLeft(line[e+1:], " \t")
	if j := strings.Index(value, " #"); j >= 0 {
		value = value[:j]
	}
	return col, strings.TrimRight(value, " \t"), true
}

// isFoldedIndicator reports whether v is a folded block scalar's header
// (>, >-, >+, >2).
func isFoldedIndicator(v string) bool {
	return v != "" && v[0] == '>' && strings.Trim(v[1:], "0123456789+-") == ""
}

// nextFoldedLine returns where the content of the line after the one
// ending at s[le] starts when it continues a scalar folded at lines
// deeper than col (not blank; for a plain scalar, no comment, list item
// or mapping entry), or -1.
func nextFoldedLine(s string, le, col int, block bool) int {
	n := le + 1
	if col < 0 || n >= len(s) || blankLineAt(s, n) {
		return -1
	}
	ind := indentAt(s, n)
	if ind <= col {
		return -1
	}
	if !block {
		content := strings.TrimRight(s[n+ind:lineEnd(s, n)], "\r")
		if content[0] == '#' || isBlockItem(content) || content == "-" || isMappingEntry(content) {
			return -1
		}
	}
	return n + ind
}
