package redact

import (
	"strings"
	"unicode/utf8"
)

// Web-encoded text. A request body or query written out percent-encoded
// (curl -d 'password%3D…', a logged URL's Authorization%3A%20Bearer%20…)
// or a page's HTML with entities (password&#61;…, &quot;…&quot;) hides
// the operators and quotes the rules read. Every rule also reads the
// text with those decoded, once: %XX below %80 (an ASCII byte) and the
// character references &#NN; and &#xHH; and &quot; &apos; &amp; &lt;
// &gt; &equals; &colon;, its spans mapped back to the encoded bytes
// (views.go). Text encoded twice (%253D) is decoded once; a name spelled
// with them (p%61ssword) wakes no rule, whose hints are looked for in the
// text as it is.

// namedEntities are the HTML named character references decoded.
var namedEntities = map[string]byte{
	"quot": '"', "apos": '\'', "amp": '&', "lt": '<', "gt": '>', "equals": '=', "colon": ':',
}

// webCode returns the byte or character a percent-encoding or a
// character reference at s[i] stands for and its length, or n == 0.
func webCode(s string, i int) (r rune, n int) {
	switch s[i] {
	case '%':
		if isHex2(s[i+1:]) {
			return hexVal(s[i+1])<<4 | hexVal(s[i+2]), 3
		}
	case '&':
		return entity(s[i+1:])
	}
	return 0, 0
}

// entity decodes the character reference that s (the text after "&")
// starts with, returning its length with the "&", or n == 0.
func entity(s string) (r rune, n int) {
	end := strings.IndexByte(s[:min(len(s), 10)], ';')
	if end <= 0 {
		return 0, 0
	}
	name := s[:end]
	if name[0] != '#' {
		if c, ok := namedEntities[name]; ok {
			return rune(c), end + 2
		}
		return 0, 0
	}
	digits, base := name[1:], rune(10)
	if digits != "" && (digits[0] == 'x' || digits[0] == 'X') {
		digits, base = digits[1:], 16
	}
	if digits == "" {
		return 0, 0
	}
	for i := 0; i < len(digits); i++ {
		d := hexVal(digits[i])
		if d < 0 || d >= base {
			return 0, 0
		}
		r = r*base + d
	}
	if r == 0 || !utf8.ValidRune(r) {
		return 0, 0
	}
	return r, end + 2
}

// hasWebCode reports whether s holds a code webCode decodes.
func hasWebCode(s string) bool {
	for i := 0; i < len(s); i++ {
		j := strings.IndexAny(s[i:], "%&")
		if j < 0 {
			return false
		}
		i += j
		if _, n := webCode(s, i); n > 0 {
			return true
		}
	}
	return false
}

// decodeWeb returns s with its percent-encodings and character
// references decoded, or nil when it holds none.
func decodeWeb(s string) *escView {
	if !hasWebCode(s) {
		return nil
	}
	var b strings.Builder
	b.Grow(len(s))
	v := &escView{from: make([]int32, 0, len(s)), to: make([]int32, 0, len(s))}
	var buf [utf8.UTFMax]byte
	for i := 0; i < len(s); {
		var r rune
		n := 0
		if s[i] == '%' || s[i] == '&' {
			r, n = webCode(s, i)
		}
		if n == 0 {
			b.WriteByte(s[i])
			v.from = append(v.from, int32(i))
			v.to = append(v.to, int32(i+1))
			i++
			continue
		}
		w := utf8.EncodeRune(buf[:], r)
		b.Write(buf[:w])
		for range w {
			v.from = append(v.from, int32(i))
			v.to = append(v.to, int32(i+n))
		}
		i += n
	}
	v.text = b.String()
	return v
}
