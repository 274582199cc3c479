package redact

import (
	"strings"
	"testing"
)

// TestSecretContainersInText: an array or object under a quoted
// secret-like key in text has its values redacted, as JSON and Value
// redact them (compact, pretty, a Python dict, escaped in a string,
// nested, left open), its keys kept; so has a YAML flow collection over
// lines under a secret-like name (not under auth, which the name: value
// rules do not read either).
func TestSecretContainersInText(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{`{"secrets": ["S3cret"]}`, `{"secrets": ["[REDACTED:credential]"]}`},
		{`{"password": ["S3cret", 42, true]}`, `{"password": ["[REDACTED:credential]", [REDACTED:credential], [REDACTED:credential]]}`},
		{`{"api_key": {"v": "S3cret", "n": {"k": 7}}, "user": "app"}`, `{"api_key": {"v": "[REDACTED:credential]", "n": {"k": [REDACTED:credential]}}, "user": "app"}`},
		{`x = {'password': ['S3cret']}`, `x = {'password': ['[REDACTED:credential]']}`},
		{`{"log":"{\"auth\": {\"u\": \"S3cret\"}}"}`, `{"log":"{\"auth\": {\"u\": \"[REDACTED:credential]\"}}"}`},
		{`{"tokens_x": 1, "token": [`, `{"tokens_x": 1, "token": [`},
		{`{"token": ["S3cret"`, `{"token": ["[REDACTED:credential]"`},
		{"password: [\n  S3cret\n]", "password: [\n  [REDACTED:credential]\n]"},
		{"{\n  \"password\": [\n    \"S3cret\"\n  ]\n}", "{\n  \"password\": [\n    \"[REDACTED:credential]\"\n  ]\n}"},
		{"db:\n  password: {v: S3cret,\n    w: 1}", "db:\n  password: {v: [REDACTED:credential],\n    w: [REDACTED:credential]}"},
		{"auth: {user: app,\n  mode: basic}", "auth: {user: app,\n  mode: basic}"},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	pretty := "{\n  \"password\": [\n    \"S3cret\"\n  ],\n  \"user\": \"app\"\n}"
	if got := r.String(pretty); strings.Contains(got, "S3cret") || !strings.Contains(got, `"user": "app"`) {
		t.Errorf("String(%q) = %q", pretty, got)
	}
	for _, in := range []string{`{"max_tokens": [1, 2]}`, `{"plain": ["x"]}`, `password: [REDACTED:credential]`} {
		if got := r.String(in); got != in {
			t.Errorf("String(%s) = %s, want it kept", in, got)
		}
	}
}

// TestSecretContainersBounded: nested and unclosed containers under
// secret keys are read once.
func TestSecretContainersBounded(t *testing.T) {
	for _, in := range []string{
		strings.Repeat(`{"password": `, 50000) + `"S3cret"`,
		strings.Repeat(`"token": [`, 50000) + `"S3cret"`,
		strings.Repeat(`"token":`, 50000) + `["S3cret"]`,
	} {
		if out := (&Redactor{}).String(in); strings.Contains(out, "S3cret") {
			t.Errorf("String(%.40q…) kept the secret: …%q", in, out[max(0, len(out)-60):])
		}
	}
}

// TestSecretContainerYAMLKeyOnItsLine: a YAML key's collection is read
// on the key's line only: a comment ending in "password:" does not make
// the next line's braces a secret.
func TestSecretContainerYAMLKeyOnItsLine(t *testing.T) {
	in := "// don't send a user and password:\n{lastReq: \"http://a.com\", newReq: \"http://b.com\"},"
	if got := (&Redactor{}).String(in); got != in {
		t.Errorf("String(%q) = %q, want it kept", in, got)
	}
}
