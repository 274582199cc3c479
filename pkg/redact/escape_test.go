package redact

import (
	"strings"
	"testing"
)

// TestEscapedTextIsDecoded: JSON written out inside a string (a log
// line's message, logfmt, a Python repr) keeps its escapes: pretty JSON
// with \n and \" escapes, \u escapes spelling a key or a flag, and the
// same escaped again are read as decoded, the spans mapped back to the
// escaped text.
func TestEscapedTextIsDecoded(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{`{"log":"{\n  \"password\":\n    \"S3cret\"\n}"}`, `{"log":"{\n  \"password\":\n    \"[REDACTED:credential]\"\n}"}`},
		{`{"log":"{\n  \"argv\": [\n    \"--password\",\n    \"S3cret\"\n  ]\n}"}`, `{"log":"{\n  \"argv\": [\n    \"--password\",\n    \"[REDACTED:credential]\"\n  ]\n}"}`},
		{`{"log":"{\n  \"name\": \"DB_PASSWORD\",\n  \"value\": \"S3cret\"\n}"}`, `{"log":"{\n  \"name\": \"DB_PASSWORD\",\n  \"value\": \"[REDACTED:credential]\"\n}"}`},
		{`{"log":"{\\\"password\\\": \\\"S3cret\\\"}"}`, `{"log":"{\\\"password\\\": \\\"[REDACTED:credential]\\\"}"}`},
		{`msg="db:\n  password: S3cret\n"`, `msg="db:\n  password: [REDACTED:credential]\n"`},
		{`msg="\npassword:\n  S3cret\n"`, `msg="\npassword:\n  [REDACTED:credential]\n"`},
		{`{"pass\u0077ord":"S3cret"}`, `{"pass\u0077ord":"[REDACTED:credential]"}`},
		{`{"\u0070assword":"S3cret"}`, `{"\u0070assword":"[REDACTED:credential]"}`},
		{`{"api\u005Fkey": "S3cret"}`, `{"api\u005Fkey": "[REDACTED:credential]"}`},
		{`["psql","--pass\u0077ord","S3cret"]`, `["psql","--pass\u0077ord","[REDACTED:credential]"]`},
		{`{"name":"DB_\u0050ASSWORD","value":"S3cret"}`, `{"name":"DB_\u0050ASSWORD","value":"[REDACTED:credential]"}`},
		{`msg="{\"pass\\u0077ord\":\"S3cret\"}"`, `msg="{\"pass\\u0077ord\":\"[REDACTED:credential]\"}"`},
		{`{'pass\u0077ord': 'S3cret'}`, `{'pass\u0077ord': '[REDACTED:credential]'}`},
		{`{"password":"S3\u0063ret"}`, `{"password":"[REDACTED:credential]"}`},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
		if got := string(r.Bytes([]byte(c.in))); got != c.want {
			t.Errorf("Bytes(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	for _, in := range []string{
		`C:\new\table\users.txt`,
		`fmt.Printf("%s\n", name)`,
		`{"note":"\u00e9t\u00e9"}`,
		`a\u12`,
		`\`,
		`\u`,
		`{"k":"\ud800"}`,
		`"diff\n-secret\n+x\n"`, // a decoded line break ends a line
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it kept", in, got)
		}
	}
}

// TestDecodeEscapes maps every decoded byte back to its escape.
func TestDecodeEscapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`a\"b`, `a"b`},
		{`\n\r\t\b\f\/\\\'`, "\n\r\t\b\f/\\'"},
		{`\u0041\u00e9`, "A\u00e9"},
		{`\ud83d\ude00x`, "\U0001F600x"},
		{`\ud83dx`, "\uFFFDx"},
		{`\ud83d\u0041`, "\uFFFDA"},
		{`\x\u12`, `\x\u12`},
		{`tail\`, `tail\`},
	} {
		v := decodeEscapes(c.in)
		if v == nil {
			if c.in != c.want {
				t.Errorf("decodeEscapes(%q) = nil", c.in)
			}
			continue
		}
		if v.text != c.want || len(v.from) != len(v.text) || len(v.to) != len(v.text) {
			t.Errorf("decodeEscapes(%q) = %q (%d/%d spans), want %q", c.in, v.text, len(v.from), len(v.to), c.want)
		}
		for i := range v.text {
			if v.from[i] >= v.to[i] || int(v.to[i]) > len(c.in) || i > 0 && v.from[i] < v.from[i-1] {
				t.Errorf("decodeEscapes(%q): byte %d from [%d, %d)", c.in, i, v.from[i], v.to[i])
			}
		}
	}
}

// TestEscapedTextBounded: text of many backslashes and escapes, escaped
// strings nested deeper than the decoded depth, redacts what it holds.
func TestEscapedTextBounded(t *testing.T) {
	for _, in := range []string{
		strings.Repeat(`\`, 100001) + ` {"password":"S3cret"}`,
		strings.Repeat(`\u0041`, 20000) + ` {"pass\u0077ord":"S3cret"}`,
		strings.Repeat(`\"\\\"`, 20000) + "\n" + `{\"password\":\"S3cret\"}`,
		strings.Repeat(`\ud83d`, 20000) + `{"password":"S3cret"}`,
	} {
		if out := (&Redactor{}).String(in); strings.Contains(out, "S3cret") {
			t.Errorf("String(%.40q…) kept the secret: …%q", in, out[max(0, len(out)-60):])
		}
	}
}

// TestEscapedAnchorNoPanic: an anchor spelled with a \u escape
// (json.Marshal writes & as \u0026) makes the alias rule's prefilter
// pass on the decoded text only; the rule must still be bound to the
// other rules there (it dereferenced a nil expression).
func TestEscapedAnchorNoPanic(t *testing.T) {
	r := &Redactor{}
	for _, in := range []string{
		`{"log":"x: \u0026p a\npassword: *p"}`,
		`\u0026p S3cret \u002ap`,
		"x: \\u0026p a\npassword: *p\n",
	} {
		_ = r.String(in)
		_ = r.Bytes([]byte(in))
	}
}

// TestEscapedStringsReadAlone: the content of a string holding escapes
// is also read as a text of its own, so its first and last lines are
// not the line around it: an alias ending the string (- *p"}), a
// complex key in a log message, an anchor written \u0026 by
// json.Marshal, two strings deep.
func TestEscapedStringsReadAlone(t *testing.T) {
	r := &Redactor{}
	for _, in := range []string{
		`{"log":"pw: \u0026p S3cret\nargs:\n  - --password\n  - *p"}`,
		`{"log":"pw: &p S3cret\npassword: *p"}`,
		`level=info msg="? password\n: S3cret" ok=1`,
		`{"log":"? password\n: S3cret"}`,
		`{"log":"{\"inner\":\"? password\\n: S3cret\"}"}`,
		`{"log":"x: \u0026p S3cret\nrun:\n- psql\n- --token\n- *p"}`,
	} {
		if got := r.String(in); strings.Contains(got, "S3cret") {
			t.Errorf("String(%s) = %s", in, got)
		}
	}
}

// TestEscapedStringsBounded: one line of many strings holding escapes
// is read once (each string's end was looked for from its line's end).
func TestEscapedStringsBounded(t *testing.T) {
	in := strings.Repeat(`"pass\u0077ord":"\u00e9",`, 20000) + `"pass\u0077ord":"S3cret"`
	if out := (&Redactor{}).String(in); strings.Contains(out, "S3cret") {
		t.Errorf("String kept the secret: …%q", out[len(out)-60:])
	}
}

// TestEscapedSpansStopAtDelimiters: a span found in a decoded view ends
// before a double quote that was no escape (the string holding the text
// closes there), so the JSON around it is kept.
func TestEscapedSpansStopAtDelimiters(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{`{"log":"args:\n  - --password\n  - S3cret"}`, `{"log":"args:\n  - --password\n  - [REDACTED:password]"}`},
		{`{"log":"x\n  password: S3cret\n"}`, `{"log":"x\n  password: [REDACTED:credential]\n"}`},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}
