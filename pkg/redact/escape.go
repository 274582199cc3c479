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
