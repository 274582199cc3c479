package redact

import "testing"

// TestBlockListArgv: a YAML block list is read as an argv whatever its
// key and whether a known command names it: the item after a flag naming
// a secret is redacted, an alias there too, and then its anchor's value.
func TestBlockListArgv(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{"pw: &p S3cret\nargs:\n  - --password\n  - *p", "pw: &p [REDACTED:credential]\nargs:\n  - --password\n  - [REDACTED:password]"},
		{"pw: &p S3cret\nargs:\n- --password\n- *p", "pw: &p [REDACTED:credential]\nargs:\n- --password\n- [REDACTED:password]"},
		{"pw: &p S3cret\nrun:\n  - psql\n  - --password\n  - *p   # alias", "pw: &p [REDACTED:credential]\nrun:\n  - psql\n  - --password\n  - [REDACTED:password]   # alias"},
		{"x: &p S3cret\ny:\n  - --auth\n  - *p", "x: &p [REDACTED:credential]\ny:\n  - --auth\n  - [REDACTED:password]"},
		{"x: &p S3cret\nargs: [--password,\n  *p]", "x: &p [REDACTED:credential]\nargs: [--password,\n  [REDACTED:password]]"},
		{"- --token\n- \"S3cret\"", "- --token\n- \"[REDACTED:password]\""},
		{"exec:\n  - psql\n  - --password   # db\n  - 'S3cret'", "exec:\n  - psql\n  - --password   # db\n  - '[REDACTED:password]'"},
		{"args:\n  - --password\n  # comment\n\n  - S3cret", "args:\n  - --password\n  # comment\n\n  - [REDACTED:password]"},
		{"args:\r\n  - --password\r\n  - S3cret\r\n", "args:\r\n  - --password\r\n  - [REDACTED:password]\r\n"},
		{"args:\n\t- --password\n\t- S3cret", "args:\n\t- --password\n\t- [REDACTED:password]"},
		{"run:\n  - mysql\n  - -uroot\n  - -pS3cret", "run:\n  - mysql\n  - -uroot\n  - -p[REDACTED:password]"},
		{"pw: &p S3cret\nenv:\n  - name: X\n    value: 1\nargs:\n  - --password\n  - *p", "pw: &p [REDACTED:credential]\nenv:\n  - name: X\n    value: 1\nargs:\n  - --password\n  - [REDACTED:password]"},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	for _, in := range []string{
		"args:\n  - --password\n  - --verbose",
		"steps:\n  - --password\n  - name: build",
		"- --password\n  - nested",
		"x: &p a\nargs:\n  - --verbose\n  - *p",
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it kept", in, got)
		}
	}
}
