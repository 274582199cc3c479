package redact

import (
	"unicode/utf16"
	"unicode/utf8"
)

// decodeJSONString appends to dst the text of the valid JSON string
// literal whose content starts at raw[i] (just after the opening quote)
// and returns it with the index just after the closing quote. It decodes
// as encoding/json does: a \u escape of a surrogate followed by a \u
// escape completing the pair is one rune; any other surrogate escape is
// U+FFFD (the escape after it is then read on its own); each byte that is
// not part of valid UTF-8 is U+FFFD.
func decodeJSONString(dst, raw []byte, i int) ([]byte, int) {
	for {
		c := raw[i]
		switch {
		case c == '"':
			return dst, i + 1
		case c == '\\':
			i++
			switch e := raw[i]; e {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := hex4(raw[i+1:])
				i += 5
				if utf16.IsSurrogate(r) {
					if raw[i] == '\\' && raw[i+1] == 'u' {
						if pair := utf16.DecodeRune(r, hex4(raw[i+2:])); pair != utf8.RuneError {
							r = pair
							i += 6
						} else {
							r = utf8.RuneError
						}
					} else {
						r = utf8.RuneError
					}
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default: // '"', '\\', '/'
				dst = append(dst, e)
			}
			i++
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			dst = utf8.AppendRune(dst, r)
			i += size
		}
	}
}

// hex4 returns the value of the four hexadecimal digits b starts with
// (the document is valid, so a \u is followed by four).
func hex4[T string | []byte](b T) rune {
	var r rune
	for i := range 4 {
		c := b[i]
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// appendJSONString appends s as a JSON string the way json.Encoder does
// with SetEscapeHTML(false): \" \\ \b \f \n \r \t, other control
// characters as \u00xx, U+2028 and U+2029 as \u2028 and \u2029, each byte
// that is not part of valid UTF-8 as \ufffd, everything else as it is.
func appendJSONString[T string | []byte](dst []byte, s T) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= ' ' && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		// At most four bytes, converted on the stack.
		r, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
