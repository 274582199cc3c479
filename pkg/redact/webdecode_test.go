package redact

import (
	"strings"
	"testing"
)

// TestDecodeWeb maps every decoded byte back to its percent-encoding or
// character reference.
func TestDecodeWeb(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a%3Db", "a=b"},
		{"%3a%20%2F", ": /"},
		{"&#61;&#x3D;&#X3d;&quot;&apos;&amp;&lt;&gt;&equals;&colon;", `==="'&<>=:`},
		{"&#233;x", "\u00e9x"},
		{"%C3%A9 %zz %4 %", "%C3%A9 %zz %4 %"},
		{"&#0; &#x110000; &#; &#x; &nbsp; &unknown; &amp &#6a;", "&#0; &#x110000; &#; &#x; &nbsp; &unknown; &amp &#6a;"},
		{"&#00000000061;", "&#00000000061;"}, // longer than a reference is read
	} {
		v := decodeWeb(c.in)
		if v == nil {
			if c.in != c.want {
				t.Errorf("decodeWeb(%q) = nil", c.in)
			}
			continue
		}
		if v.text != c.want || len(v.from) != len(v.text) || len(v.to) != len(v.text) {
			t.Errorf("decodeWeb(%q) = %q (%d/%d spans), want %q", c.in, v.text, len(v.from), len(v.to), c.want)
		}
		for i := range v.text {
			if v.from[i] >= v.to[i] || int(v.to[i]) > len(c.in) || i > 0 && v.from[i] < v.from[i-1] {
				t.Errorf("decodeWeb(%q): byte %d from [%d, %d)", c.in, i, v.from[i], v.to[i])
			}
		}
	}
}

// TestWebEncodedTextBounded: text packed with percent-encodings and
// character references redacts what it holds.
func TestWebEncodedTextBounded(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("%3D", 100000) + " password%3DS3cret",
		strings.Repeat("&#61;", 100000) + " password&#61;S3cret",
		"password " + strings.Repeat("&#x3D;a", 50000) + "\npassword&#x3D;S3cret",
		strings.Repeat("&", 100000) + " password&#61;S3cret",
	} {
		if out := (&Redactor{}).String(in); strings.Contains(out, "S3cret") {
			t.Errorf("String(%.40q…) kept the secret: …%q", in, out[max(0, len(out)-60):])
		}
	}
}
