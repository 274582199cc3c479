package codex

import "strings"

// normalize applies decoder step 1: drop a UTF-8 BOM, turn CR/CRLF into LF
// and tabs/vertical tabs/form feeds into spaces, collapse runs of spaces,
// trim every line, drop blank lines and end with a single newline. Encoder
// output is a fixed point of normalize.
func normalize(s string) string {
	s = strings.TrimPrefix(s, "\ufeff")
	var b strings.Builder
	b.Grow(len(s) + 1)
	lineStart := true // nothing written on the current line yet
	pendingSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\r', '\n':
			if !lineStart {
				b.WriteByte('\n')
			}
			lineStart, pendingSpace = true, false
		case ' ', '\t', '\v', '\f':
			if !lineStart {
				pendingSpace = true
			}
		default:
			if pendingSpace {
				b.WriteByte(' ')
				pendingSpace = false
			}
			b.WriteByte(c)
			lineStart = false
		}
	}
	if !lineStart {
		b.WriteByte('\n')
	}
	return b.String()
}
