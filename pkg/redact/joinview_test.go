package redact

import (
	"strings"
	"testing"
)

// TestComplexKeys: a YAML complex key naming a secret (? password) has
// its value redacted on the ":" line after it at the same column, in
// every form the name: value rules read (quoted, commented, CRLF, tabs,
// nested, a list item, a block scalar, on the lines after).
func TestComplexKeys(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{"? password\n: S3cret", "? password\n: [REDACTED:credential]"},
		{"? password\n: \"S3cret\"", "? password\n: \"[REDACTED:credential]\""},
		{"? password  # db\n: S3cret  # c", "? password  # db\n: [REDACTED:credential]  # c"},
		{"db:\n  ? password\n  : S3cret\n  user: app", "db:\n  ? password\n  : [REDACTED:credential]\n  user: app"},
		{"- ? password\n  : S3cret", "- ? password\n  : [REDACTED:credential]"},
		{"? \"password\"\n: S3cret", "? \"password\"\n: [REDACTED:credential]"},
		{"? password\r\n: S3cret\r\n", "? password\r\n: [REDACTED:credential]\r\n"},
		{"? password\n:\n  S3cret", "? password\n:\n  [REDACTED:credential]"},
		{"? password\n: |\n  S3cret", "? password\n: |\n  [REDACTED:credential]"},
		{"? password\n\n# c\n: S3cret", "? password\n\n# c\n: [REDACTED:credential]"},
		{"?\tDB_PASSWORD\n:\tS3cret", "?\tDB_PASSWORD\n:\t[REDACTED:credential]"},
		{"? name\n: x\n? api_key\n: S3cret", "? name\n: x\n? api_key\n: [REDACTED:credential]"},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	for _, in := range []string{
		"? name\n: app",
		"? password\n  : S3cret?", // the ":" at another column: no value of the key
		"Why? password\n: policy",
		"? password_policy\n: strict",
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it kept", in, got)
		}
	}
}

// TestContinuedCommandLines: a command continued on the next line (a
// shell's "\", PowerShell's backtick, cmd's "^", CRLF, in a YAML block
// scalar) is read as one line.
func TestContinuedCommandLines(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{"mysql -uroot \\\n  -pS3cret db", "mysql -uroot \\\n  -p[REDACTED:password] db"},
		{"docker login -u me \\\n  -p S3cret ghcr.io", "docker login -u me \\\n  -p [REDACTED:password] ghcr.io"},
		{"run: |\n  mysql -uroot \\\n    -pS3cret", "run: |\n  mysql -uroot \\\n    -p[REDACTED:password]"},
		{"RUN mysql -uroot \\\r\n    -pS3cret\r\n", "RUN mysql -uroot \\\r\n    -p[REDACTED:password]\r\n"},
		{"mysql -uroot `\n  -pS3cret", "mysql -uroot `\n  -p[REDACTED:password]"},
		{"mysql -uroot ^\n  -pS3cret", "mysql -uroot ^\n  -p[REDACTED:password]"},
		{"tool --token \\\n  S3cret", "tool --token [REDACTED:credential]\n  [REDACTED:credential]"},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	for _, in := range []string{"mysql \\\n  -e 'select 1' db", "ls \\\n -p3306"} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it kept", in, got)
		}
	}
}

// TestJoinedLinesBounded: many keys, comments and continuations are read
// once each and still give the secret.
func TestJoinedLinesBounded(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("? password\n", 50000) + ": S3cret",
		"? password\n" + strings.Repeat("# c\n", 50000) + ": S3cret",
		"mysql " + strings.Repeat("\\\n ", 50000) + "-pS3cret",
		strings.Repeat("?\n", 50000) + "? token\n: S3cret",
	} {
		if out := (&Redactor{}).String(in); strings.Contains(out, "S3cret") {
			t.Errorf("String(%.40q…) kept the secret: …%q", in, out[max(0, len(out)-60):])
		}
	}
}

// TestFoldedScalars: a YAML scalar folded over lines, plain or a folded
// block (>), is read as YAML folds it, one line: a flag's value or a
// command's password on the next line is redacted; a literal block (|)
// keeps its lines apart (each a command of its own).
func TestFoldedScalars(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{"run: psql --password\n  S3cret", "run: psql --password\n  [REDACTED:credential]"},
		{"run: >\n  psql --password\n  S3cret", "run: >\n  psql --password\n  [REDACTED:credential]"},
		{"- run: mysql -uroot\n    -pS3cret", "- run: mysql -uroot\n    -p[REDACTED:password]"},
		{"steps:\n  - run: >-\n      docker login -u me -p\n      S3cret", "steps:\n  - run: >-\n      docker login -u me -p\n      [REDACTED:password]"},
		{"script: mysql\n  -pS3cret # c", "script: mysql\n  -p[REDACTED:password] # c"},
		{"run: psql --password\r\n  S3cret\r\n", "run: psql --password\r\n  [REDACTED:credential]\r\n"},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	for _, in := range []string{
		"note: see the\n  password section",
		"run: |\n  psql --password\n  ls",
		"run: psql --password\n  - item",
		"run: psql --password\nnext: x",
		"x: --token\n  # comment",
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it kept", in, got)
		}
	}
}
