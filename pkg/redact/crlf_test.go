package redact

import "testing"

// TestCRLFLines: a name: value line ending in CRLF (a file written on
// Windows) is redacted as one ending in LF, and with it the anchored
// value an alias on such a line names.
func TestCRLFLines(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{"password: hunter2\r\ny: 1\r\n", "password: [REDACTED:credential]\r\ny: 1\r\n"},
		{"password: hunter2\r", "password: [REDACTED:credential]\r"},
		{"a: 1\r\nDB_PASSWORD: \"hunter2\" # x\r\n", "a: 1\r\nDB_PASSWORD: \"[REDACTED:credential]\" # x\r\n"},
		{"x: &pw hunter2\r\npassword: *pw\r\n", "x: &pw [REDACTED:credential]\r\npassword: [REDACTED:credential]\r\n"},
		{"x: &pw |\r\n  hunter2\r\npassword: *pw\r\ny: 1\r\n", "x: &pw |\r\n  [REDACTED:credential]\r\npassword: [REDACTED:credential]\r\ny: 1\r\n"},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
