package redact

import "testing"

// TestYAMLFlowMappingValues: a secret-like name in a YAML flow mapping
// with a plain (unquoted) value has it redacted; code with the same look
// (a struct literal's Password: cfg.Password, JS shorthand) is kept.
func TestYAMLFlowMappingValues(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{"db: {password: hunter2, user: app}", "db: {password: [REDACTED:credential], user: app}"},
		{"{token: abc123}", "{token: [REDACTED:credential]}"},
		{"- {name: db, db_pass: s3 cret , port: 5432}", "- {name: db, db_pass: [REDACTED:credential] , port: 5432}"},
		{"auth: {user: a, 'api_key': k3y}", "auth: {user: a, 'api_key': [REDACTED:credential]}"},
		{"x: {a: {password: p1}, token: t2}", "x: {a: {password: [REDACTED:credential]}, token: [REDACTED:credential]}"},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again := r.String(c.want); again != c.want {
			t.Errorf("String(%q) changed the redacted text: %q", c.want, again)
		}
	}
	for _, in := range []string{
		"cfg := Config{Password: cfg.Password, User: u}",
		"login({password: password, user})",
		"connect({ token: getToken(), retries: 3 })",
		"db: {password: , user: app}",
		"s := T{Token: tok.Value, N: 1}",
		"x = {password: this.password}",
		"if a, password: b {",
		"\t\t{name: \"original PWD\", pwd: cwd},",
		"certs := []Certificate{{Certificate: list, PrivateKey: key}}",
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}

// TestQuotedScalarOnLaterLines: a quoted scalar under a secret-like name
// continued on the next lines has every line redacted, up to its
// closing quote.
func TestQuotedScalarOnLaterLines(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{"password: \"hun\n  ter2\"\nuser: x", "password: \"[REDACTED:credential]\n  [REDACTED:credential]\"\nuser: x"},
		{"  password: 'hun\n    ter2'\n", "  password: '[REDACTED:credential]\n    [REDACTED:credential]'\n"},
		{"db:\n  password: \"a b\n    c \\\" d\n    e\"  # c\n  user: x\n", "db:\n  password: \"[REDACTED:credential]\n    [REDACTED:credential]\n    [REDACTED:credential]\"  # c\n  user: x\n"},
		{`{"password": "hun` + "\n" + `  ter2"}`, `{"password": "[REDACTED:credential]` + "\n" + `  [REDACTED:credential]"}`},
		{"password: \"open\nuser: x\n", "password: \"[REDACTED:credential]\nuser: x\n"},
		{"password: \"x\"\n  other\"", "password: \"[REDACTED:credential]\"\n  other\""},
		{"- token: 'it''s\n\n   a'' secret'\n- x\n", "- token: '[REDACTED:credential]\n\n   [REDACTED:credential]'\n- x\n"},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again := r.String(c.want); again != c.want {
			t.Errorf("String(%q) changed the redacted text: %q", c.want, again)
		}
	}
	for _, in := range []string{
		"password: \"\nuser: x\n",
		"msg := \"password: \"\nfoo()\n",
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}
