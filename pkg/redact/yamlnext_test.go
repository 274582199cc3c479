package redact

import "testing"

// laterLineCases are YAML values under a secret-like name given on a line
// after the name's (a plain or quoted scalar, after blank and comment
// lines), .pgpass lines, and their redaction.
var laterLineCases = []struct{ name, in, want string }{
	{"next line", "password:\n  hunter2\n", "password:\n  [REDACTED:credential]\n"},
	{"after a blank line", "password:\n\n  hunter2\n", "password:\n\n  [REDACTED:credential]\n"},
	{"after a comment", "password:\n  # rotated monthly\n  hunter2\nuser: app\n", "password:\n  # rotated monthly\n  [REDACTED:credential]\nuser: app\n"},
	{"comment on the name line", "db:\n  password: # prod\n    hunter2\n  host: db\n", "db:\n  password: # prod\n    [REDACTED:credential]\n  host: db\n"},
	{"nested and crlf", "db:\r\n  api_key:\r\n    k3y-value\r\n", "db:\r\n  api_key:\r\n    [REDACTED:credential]\r\n"},
	{"quoted", "password:\n  \"hun ter2\"\n", "password:\n  \"[REDACTED:credential]\"\n"},
	{"multi-line plain scalar", "client_secret:\n  part-one\n  part-two\nnext: 1\n", "client_secret:\n  [REDACTED:credential]\n  [REDACTED:credential]\nnext: 1\n"},
	{"list item name", "- password:\n    hunter2\n", "- password:\n    [REDACTED:credential]\n"},
	{"ansible vault", "db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6231\n", "db_password: !vault |\n  [REDACTED:credential]\n  [REDACTED:credential]\n"},
	{"settings holding a secret", "password:\n  min_length: 12\n  token:\n    abc\n", "password:\n  min_length: 12\n  token:\n    [REDACTED:credential]\n"},
	{"mapping after the scalar", "password:\n  hunter2\n  x: y\n", "password:\n  [REDACTED:credential]\n  x: y\n"},
	{"list of secrets", "spec:\n  passwords:\n    - hunter2\n    - \"s3 cret\"\n  user: x\n", "spec:\n  passwords:\n    - [REDACTED:credential]\n    - \"[REDACTED:credential]\"\n  user: x\n"},
	{"compact list of secrets", "spec:\n  passwords:\n  - hunter2\n  - s3cr3t\n  user: x\n", "spec:\n  passwords:\n  - [REDACTED:credential]\n  - [REDACTED:credential]\n  user: x\n"},
	{"compact list after a comment", "passwords: # all\n\n- hunter2\nuser: x\n", "passwords: # all\n\n- [REDACTED:credential]\nuser: x\n"},
	{"pgpass line", "db.example.com:5432:app:alice:s3cr3t\n", "db.example.com:5432:app:alice:[REDACTED:password]\n"},
	{"pgpass wildcards", "*:*:*:postgres:pa\\:ss\n", "*:*:*:postgres:[REDACTED:password]\n"},
	{"pgpass password with a space", "db:5432:app:alice:two words\r\n", "db:5432:app:alice:[REDACTED:password]\r\n"},
	{"tagged name line", "password: !!str\n  hunter2\n", "password: [REDACTED:credential]\n  [REDACTED:credential]\n"},
	{"anchored name line", "password: &pw # shared\n  hunter2\n", "password: [REDACTED:credential] # shared\n  [REDACTED:credential]\n"},
	{"pgpass in a command", "echo 'localhost:5432:*:app:hunter2' >> ~/.pgpass", "echo 'localhost:5432:*:app:[REDACTED:password]' >> ~/.pgpass"},
	{"pgpass in json text", `{"content":"h.local:5432:d:u:pw1\nh2:5432:d:u:pw2\n"}`, `{"content":"h.local:5432:d:u:[REDACTED:password]\nh2:5432:d:u:[REDACTED:password]\n"}`},
	{"pgpass in escaped json text", `{\"content\":\"h:5432:d:u:pw1\"}`, `{\"content\":\"h:5432:d:u:[REDACTED:password]\"}`},
	{"pgpass quote in a single-quoted echo", `echo 'db.example.com:5432:app:alice:pa'"'"'ss' >> ~/.pgpass`, `echo 'db.example.com:5432:app:alice:[REDACTED:password]' >> ~/.pgpass`},
	{"pgpass quote escaped between single quotes", `echo 'db:5432:app:alice:pa'\''ss' >> ~/.pgpass`, `echo 'db:5432:app:alice:[REDACTED:password]' >> ~/.pgpass`},
	{"pgpass quote in a double-quoted echo", `echo "db.example.com:5432:app:alice:pa'ss" >> ~/.pgpass`, `echo "db.example.com:5432:app:alice:[REDACTED:password]" >> ~/.pgpass`},
	{"pgpass escaped quote in a double-quoted echo", `echo "db:5432:app:alice:pa\"ss'x" >> ~/.pgpass`, `echo "db:5432:app:alice:[REDACTED:password]" >> ~/.pgpass`},
	{"pgpass space in a quoted echo", `echo 'db:5432:app:alice:two words' >> ~/.pgpass`, `echo 'db:5432:app:alice:[REDACTED:password]' >> ~/.pgpass`},
	{"pgpass quote in json text", `{"content":"h.local:5432:d:u:pa'ss","mode":"0600"}`, `{"content":"h.local:5432:d:u:[REDACTED:password]","mode":"0600"}`},
	{"pgpass json members kept", `{"a":"h.local:5432:d:u:pw","b":"x y"}`, `{"a":"h.local:5432:d:u:[REDACTED:password]","b":"x y"}`},
	{"pgpass in cat output", "$ cat ~/.pgpass\r\n10.0.0.5:6432:app:app_rw:Zx9!q\r\n", "$ cat ~/.pgpass\r\n10.0.0.5:6432:app:app_rw:[REDACTED:password]\r\n"},
}

func TestLaterLineValuesAndPgpass(t *testing.T) {
	r := &Redactor{}
	for _, tt := range laterLineCases {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestLaterLinesLeftAlone: a secret-like name over a mapping or a list
// (settings, the names of Docker secrets), a Makefile target, and text
// with colons that is no .pgpass line are kept; so is GitHub Actions'
// secrets: inherit.
func TestLaterLinesLeftAlone(t *testing.T) {
	r := &Redactor{}
	for _, in := range []string{
		"password:\n  min_length: 12\n  require_digit: true\n",
		"services:\n  web:\n    secrets:\n      - db_password\n      - api_key\n",
		"token:\n\t@./scripts/new-token.sh\n",
		"password:\nuser: app\n",
		"tokens:\n  - name: a\n    scope: read\n",
		"Secrets:\n  - api_key\n",
		"jobs:\n  call:\n    uses: ./.github/workflows/build.yml\n    secrets: inherit\n",
		"secrets: inherit # pass them all\n",
		"main.go:12:5: undefined: token\n",
		"2024:01:02:03:04\n",
		"aa:bb:cc:dd:ee:ff 00:1a:2b:3c:4d:5e\n",
		"root:x:0:0:root:/root:/bin/bash\n",
		"127.0.0.1:8080:80/tcp\n",
		"ratio host:port:db:user:password is the .pgpass format\n",
		"fe80::1:2:3\n",
		"offset 2010-02-04T21:00:57+08:00:00 parsed\n", // a timestamp whose hour holds the T
		"2006-01-02T15:04:05Z07:00:00\n",
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}

// TestYAMLAliases: the value anchored where an alias under a secret-like
// name points is redacted, and so is a value anchored under a secret-like
// name. The alias itself is redacted too: a rule reads one line, where
// "*name" may be a password that starts with "*".
func TestYAMLAliases(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{"password: *pw\n", "password: [REDACTED:credential]\n"},
		{"PASSWORD: *hunter2\n", "PASSWORD: [REDACTED:credential]\n"},
		{"db:\n  password: *pw # shared\n", "db:\n  password: [REDACTED:credential] # shared\n"},
		{"- password: *pw\n", "- password: [REDACTED:credential]\n"},
		{"db: {password: *pw, user: app}\n", "db: {password: [REDACTED:credential], user: app}\n"},
		{"env:\n- name: DB_PASSWORD\n  value: *pw\n", "env:\n- name: DB_PASSWORD\n  value: [REDACTED:credential]\n"},
		{"password:\n  *pw\n", "password:\n  [REDACTED:credential]\n"},
		{"x: &pw S3cret\npassword: *pw\n", "x: &pw [REDACTED:credential]\npassword: [REDACTED:credential]\n"},
		{"defaults:\n  base: &pw 'S3 cret' # old\nprod:\n  password: *pw\n", "defaults:\n  base: &pw '[REDACTED:credential]' # old\nprod:\n  password: [REDACTED:credential]\n"},
		{"base: &pw \"S3\\\"cret\"\npassword: *pw\n", "base: &pw \"[REDACTED:credential]\"\npassword: [REDACTED:credential]\n"},
		{"password: &pw S3cret\nother: *pw\n", "password: [REDACTED:credential]\nother: *pw\n"},
		{"PASSWORD=*pw\n", "PASSWORD=[REDACTED:credential]\n"},
		{"password = *pw\n", "password = [REDACTED:credential]\n"},
		{"password: \"*pw\"\n", "password: \"[REDACTED:credential]\"\n"},
		{"password: '*pw'\n", "password: '[REDACTED:credential]'\n"},
		{"password: *pw S3cret\n", "password: [REDACTED:credential]\n"},
		{"- password: **hunter2**\n", "- password: [REDACTED:credential]\n"},
		// An anchor no secret alias points at, a longer anchor name, a
		// mapping's anchor.
		{"x: &pw S3cret\ny: *pw\n", "x: &pw S3cret\ny: *pw\n"},
		{"x: &pwd v1\npassword: *pw\n", "x: &pwd v1\npassword: [REDACTED:credential]\n"},
		{"x: &pw\n  a: b\npassword: *pw\n", "x: &pw\n  a: b\npassword: [REDACTED:credential]\n"},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again := r.String(c.want); again != c.want {
			t.Errorf("String(%q) changed the redacted text: %q", c.want, again)
		}
	}
}
