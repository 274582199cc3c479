package redact

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Escaped text. JSON (or a Python repr) held in a string and written out
// as raw text keeps its escapes: a log line's message holding
// "{\n  \"password\": \"…\"\n}", a logfmt msg="{\"token\":\"…\"}", a key
// spelled "pass\u0077ord". Every rule also runs over the text with its
// escapes decoded (\" \' \\ \/ \b \f \n \r \t, \uXXXX, a surrogate pair
// as one character, and Python's and JavaScript's \xHH below 0x80),
// its spans mapped back to the escaped bytes, ending before a double
// quote that was no escape (a string's delimiter); a text still holding
// escapes once decoded (JSON escaped in a string escaped in a string) is
// decoded again, up to maxEscapeDepth times. The content of each
// double-quoted string holding an escape is also read alone, decoded, as
// a text of its own (its first and last lines are the string's), and so
// is its joined view (joinview.go). A line rule reads a view line by
// line. A rule's hints are looked for in the decoded text too
// ("\u0070assword"). Backslashes that are no escape (C:\dir) are kept as
// they are; a Windows path's \n or \t is read as a line break or a tab,
// which may only redact more.

// maxEscapeDepth is how many times text is decoded: escaped JSON in a
// JSON string in a JSON string, three strings deep.
const maxEscapeDepth = 3

// escView is a text with its escapes decoded: text[i] comes from the
// escaped text's bytes [from[i], to[i]).
type escView struct {
	text     string
	from, to []int32
	// decoded: a view holding decoded escapes, where a double quote
	// that was no escape is a string's delimiter, never a value's byte.
	decoded bool
	// joins are a joined view's indexes where lines were joined.
	joins []int
}

// hasEscape reports whether s holds an escape decodeEscapes decodes.
func hasEscape(s string) bool {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '\\')
		if j < 0 || i+j+1 >= len(s) {
			return false
		}
		i += j + 1
		if escapedByte(s[i]) != 0 || s[i] == 'u' && isHex4(s[i+1:]) || s[i] == 'x' && isHex2(s[i+1:]) {
			return true
		}
	}
}

// hasUnicodeEscape reports whether s holds a \uXXXX escape, the one
// escape that may spell a hint.
func hasUnicodeEscape(s string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], `\u`)
		if j < 0 {
			return false
		}
		i += j + 2
		if isHex4(s[i:]) {
			return true
		}
	}
}

// escapedByte returns the byte an escape \c stands for, or 0 (u is
// decoded apart).
func escapedByte(c byte) byte {
	switch c {
	case '"', '\'', '\\', '/':
		return c
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return 0
}

// isHex4 reports whether s starts with four hexadecimal digits.
func isHex4(s string) bool {
	if len(s) < 4 {
		return false
	}
	for i := range 4 {
		if hexVal(s[i]) < 0 {
			return false
		}
	}
	return true
}

// isHex2 reports whether s starts with two hexadecimal digits making a
// byte below 0x80 (an ASCII character).
func isHex2(s string) bool {
	return len(s) >= 2 && '0' <= s[0] && s[0] <= '7' && hexVal(s[1]) >= 0
}

// hexVal is a hexadecimal digit's value, or -1.
func hexVal(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return rune(c-'A') + 10
	}
	return -1
}

// decodeEscapes returns s with its escapes decoded, or nil when it holds
// none.
func decodeEscapes(s string) *escView {
	if !hasEscape(s) {
		return nil
	}
	var b strings.Builder
	b.Grow(len(s))
	v := &escView{from: make([]int32, 0, len(s)), to: make([]int32, 0, len(s))}
	emit := func(text string, from, to int) {
		b.WriteString(text)
		for range len(text) {
			v.from = append(v.from, int32(from))
			v.to = append(v.to, int32(to))
		}
	}
	var buf [utf8.UTFMax]byte
	for i := 0; i < len(s); {
		if s[i] != '\\' || i+1 >= len(s) {
			emit(s[i:i+1], i, i+1)
			i++
			continue
		}
		if c := escapedByte(s[i+1]); c != 0 {
			buf[0] = c
			emit(string(buf[:1]), i, i+2)
			i += 2
			continue
		}
		if s[i+1] == 'x' && isHex2(s[i+2:]) {
			// Python's and JavaScript's \xHH: a byte below 0x80 only.
			buf[0] = byte(hexVal(s[i+2])<<4 | hexVal(s[i+3]))
			emit(string(buf[:1]), i, i+4)
			i += 4
			continue
		}
		if s[i+1] != 'u' || !isHex4(s[i+2:]) {
			emit(s[i:i+1], i, i+1)
			i++
			continue
		}
		r, end := hex4(s[i+2:]), i+6
		if utf16.IsSurrogate(r) {
			r2 := utf8.RuneError
			if end+6 <= len(s) && s[end] == '\\' && s[end+1] == 'u' && isHex4(s[end+2:]) {
				r2 = hex4(s[end+2:])
			}
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				r, end = d, end+6
			} else {
				r = utf8.RuneError
			}
		}
		n := utf8.EncodeRune(buf[:], r)
		emit(string(buf[:n]), i, end)
		i = end
	}
	v.text = b.String()
	v.decoded = true
	return v
}

// escViews are a text's other views, each mapped straight back to the
// text: its decoded views (decoded, then again while escapes remain, up
// to maxEscapeDepth) and its joined view (see joinedView), made once for
// the rules that read the same text: made is set once they are.
type escViews struct {
	made  bool
	views []*escView
}

// of returns the views of s, making them unless made.
func (vs *escViews) of(s string) []*escView {
	if vs.made {
		return vs.views
	}
	vs.made = true
	var prev *escView
	for t := s; len(vs.views) < maxEscapeDepth; {
		v := decodeEscapes(t)
		if v == nil {
			break
		}
		t = v.text
		if prev != nil {
			v.mapThrough(prev)
		}
		vs.views = append(vs.views, v)
		prev = v
	}
	vs.addStrings(s, nil, 1)
	if v := joinedView(s); v != nil {
		vs.views = append(vs.views, v)
	}
	return vs.views
}

// addStrings adds a view of the content of each double-quoted string of
// t (a view of the text, parent; nil: the text) holding an escape,
// decoded, as if it were a text of its own (a log line's message
// holding YAML or JSON: its first and last lines are the string's, not
// the line around it), its joined view, and the same for the strings
// inside, depth strings deep at most (maxEscapeDepth).
func (vs *escViews) addStrings(t string, parent *escView, depth int) {
	if depth > maxEscapeDepth || strings.IndexByte(t, '\\') < 0 {
		return
	}
	for i := 0; i < len(t); {
		j := strings.IndexByte(t[i:], '"')
		if j < 0 {
			return
		}
		a := i + j + 1
		e := a // the closing quote, or the line's end (a JSON string is one line)
		for e < len(t) && t[e] != '"' && t[e] != '\n' {
			if t[e] == '\\' {
				e++
			}
			e++
		}
		if e >= len(t) || t[e] != '"' {
			i = e // unclosed: no quote after it on its line
			continue
		}
		i = e + 1
		v := decodeEscapes(t[a:e])
		if v == nil {
			continue
		}
		for k := range v.from {
			v.from[k] += int32(a)
			v.to[k] += int32(a)
		}
		if parent != nil {
			v.mapThrough(parent)
		}
		vs.views = append(vs.views, v)
		if jv := joinedView(v.text); jv != nil {
			jv.mapThrough(v)
			vs.views = append(vs.views, jv)
		}
		vs.addStrings(v.text, v, depth+1)
	}
}

// mapThrough maps v, a view of parent's text, to parent's own text.
func (v *escView) mapThrough(parent *escView) {
	for i := range v.from {
		v.from[i], v.to[i] = parent.from[v.from[i]], parent.to[v.to[i]-1]
	}
}

// span maps the span [a, b) of v's text back to its text. In a decoded
// view it ends before a double quote that was no escape (the string holding
// the value closes there: {"log":"…\n  - *p"} gives "*p", not *p"}), or
// is nil when it starts with one.
func (v *escView) span(a, b int) []int {
	if v.decoded {
		for k := a; k < b; k++ {
			if v.text[k] == '"' && v.to[k]-v.from[k] == 1 {
				b = k
				break
			}
		}
		if a >= b {
			return nil
		}
	}
	return []int{int(v.from[a]), int(v.to[b-1])}
}

// escapedSpans returns the spans find gives in views, mapped back to
// their text. ok tests a view's text before find runs on it. A line
// rule (lines) reads each line of a view apart, as it reads the text's:
// a decoded "\n" ends a line.
func escapedSpans(views []*escView, lines bool, ok func(string) bool, find func(string) [][]int) [][]int {
	var locs [][]int
	for _, v := range views {
		for ls := 0; ls < len(v.text); {
			le := len(v.text)
			if lines {
				le = min(lineEnd(v.text, ls)+1, len(v.text))
			}
			if t := v.text[ls:le]; ok(t) {
				for _, l := range find(t) {
					if l[0] < 0 || l[0] >= l[1] {
						continue
					}
					if sp := v.span(ls+l[0], ls+l[1]); sp != nil {
						locs = append(locs, sp)
					}
				}
			}
			ls = le
		}
	}
	return locs
}
