package rao

import (
	"testing"
	"unicode/utf8"
)

// appendStringByByte is appendString as it was, one byte at a time: the
// reference the bulk appends are held to.
func appendStringByByte(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			case c == '\n':
				buf = append(buf, '\\', 'n')
			case c == '\r':
				buf = append(buf, '\\', 'r')
			case c == '\t':
				buf = append(buf, '\\', 't')
			case c < 0x20:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				buf = append(buf, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, "\ufffd"...)
		} else {
			buf = append(buf, s[i:i+size]...)
		}
		i += size
	}
	return append(buf, '"')
}

var appendStringSeeds = []string{
	"", "plain", `"`, `\`, "a\"b\\c", "\n\r\t\x00\x1f\x7f", "tab\tend",
	"é ü 日本 \u2028\u2029 😀", "\xff", "a\xffb", "\xe6\x97", "x\xe6\x97", "\xed\xa0\x80",
	"<script>&amp;</script>", "ends with escape\n", "\x01start",
}

// TestAppendStringBulk: appendString writes what the byte-by-byte
// encoder wrote, after any prefix.
func TestAppendStringBulk(t *testing.T) {
	for _, s := range appendStringSeeds {
		if got, want := string(appendString([]byte("p"), s)), string(appendStringByByte([]byte("p"), s)); got != want {
			t.Errorf("appendString(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range appendStringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendString(nil, s)), string(appendStringByByte(nil, s)); got != want {
			t.Fatalf("appendString(%q) = %q, want %q", s, got, want)
		}
	})
}

// BenchmarkAppendString encodes strings as a state's are: mostly plain
// text, a few escapes.
func BenchmarkAppendString(b *testing.B) {
	s := "builder change (attempt 1): 3 files, +12 -4; edited greet.go to \"greet\" the user\n" +
		"diff --git a/greet.go b/greet.go\n@@ -1,3 +1,4 @@\n func Greet(name string) string {\n\treturn \"Hello, \" + name\n}\n"
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = appendString(buf[:0], s)
	}
}
