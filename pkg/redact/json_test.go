package redact

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// jsonCases are JSON documents and their redaction.
var jsonCases = []struct {
	name string
	in   string
	want string
}{
	{
		name: "string values redacted by pattern",
		in:   `{"log": "using ` + awsKeyID + `", "n": 1}`,
		want: `{"log":"using [REDACTED:aws-key]","n":1}`,
	},
	{
		name: "secret keys redacted whatever the value",
		in:   `{"user":"ann","password":"hunter2","api_key":"k","X-Api-Key":"k2","GITHUB_TOKEN":"t","pin_secret":1234}`,
		want: `{"user":"ann","password":"[REDACTED:secret]","api_key":"[REDACTED:secret]","X-Api-Key":"[REDACTED:secret]","GITHUB_TOKEN":"[REDACTED:secret]","pin_secret":"[REDACTED:secret]"}`,
	},
	{
		name: "everything below a secret key, booleans and nulls kept",
		in:   `{"credentials":{"user":"a","n":5,"ok":true,"none":null,"list":["x",{"y":"z"}]},"after":"kept"}`,
		want: `{"credentials":{"user":"[REDACTED:secret]","n":"[REDACTED:secret]","ok":true,"none":null,"list":["[REDACTED:secret]",{"y":"[REDACTED:secret]"}]},"after":"kept"}`,
	},
	{
		name: "headers map",
		in:   `{"headers":{"Authorization":"Bearer abc","Accept":"application/json"}}`,
		want: `{"headers":{"Authorization":"[REDACTED:secret]","Accept":"application/json"}}`,
	},
	{
		name: "telemetry keys are not secret",
		in:   `{"max_tokens":4096,"token_count":3,"prompt_tokens":12,"tokenizer":"bpe"}`,
		want: `{"max_tokens":4096,"token_count":3,"prompt_tokens":12,"tokenizer":"bpe"}`,
	},
	{
		name: "key order, numbers and characters preserved",
		in:   "{\"z\":1,\"a\":12345678901234567890123,\"m\":-1.5e-300,\"html\":\"<a&b>\",\"u\":\"\\u00e9\\n\"}",
		want: "{\"z\":1,\"a\":12345678901234567890123,\"m\":-1.5e-300,\"html\":\"<a&b>\",\"u\":\"é\\n\"}",
	},
	{
		name: "arrays of objects",
		in:   `[{"token":"a"},{"name":"b"},[],{},"sk-abcdefghijklmnopqrstuvwxyz"]`,
		want: `[{"token":"[REDACTED:secret]"},{"name":"b"},[],{},"[REDACTED:openai-key]"]`,
	},
	{
		name: "private key with escaped newlines",
		in:   `{"k":"-----BEGIN PRIVATE KEY-----\nMIIabc\n-----END PRIVATE KEY-----"}`,
		want: `{"k":"[REDACTED:private-key]"}`,
	},
	{
		name: "keys themselves are kept",
		in:   `{"password":{"password":"x"}}`,
		want: `{"password":{"password":"[REDACTED:secret]"}}`,
	},
	{
		name: "names the text rules treat as secret are secret keys",
		in:   `{"env":{"MYSQL_PWD":"hunter2","DB_PASSWD":"hunter2","SECRET_KEY_BASE":"0123abcd"},"headers":{"Proxy-Authorization":"Basic dXNlcjpwYXNzd29yZA=="}}`,
		want: `{"env":{"MYSQL_PWD":"[REDACTED:secret]","DB_PASSWD":"[REDACTED:secret]","SECRET_KEY_BASE":"[REDACTED:secret]"},"headers":{"Proxy-Authorization":"[REDACTED:secret]"}}`,
	},
	{name: "scalar string", in: `"` + ghToken + `"`, want: `"[REDACTED:github-token]"`},
	{name: "scalar number", in: ` 42 `, want: `42`},
	{name: "scalar literals", in: `[true,false,null]`, want: `[true,false,null]`},
}

func TestJSON(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range jsonCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.JSON([]byte(tt.in))
			if err != nil {
				t.Fatalf("JSON: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("JSON(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("output is not valid JSON: %s", got)
			}
		})
	}
}

// invalidJSONCases are inputs JSON rejects.
var invalidJSONCases = []struct {
	name string
	in   string
}{
	{name: "empty", in: ""},
	{name: "whitespace", in: "  \n"},
	{name: "unterminated object", in: `{"a":1`},
	{name: "trailing comma", in: `{"a":1,}`},
	{name: "missing colon", in: `{"a" 1}`},
	{name: "two documents", in: `{} {}`},
	{name: "trailing garbage", in: `[1] x`},
	{name: "bare word", in: `password`},
	{name: "non-string key", in: `{1:2}`},
}

func TestJSONRejectsInvalidInput(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range invalidJSONCases {
		t.Run(tt.name, func(t *testing.T) {
			out, err := r.JSON([]byte(tt.in))
			if out != nil || !errors.Is(err, ErrInvalidJSON) {
				t.Errorf("JSON(%q) = %s, %v; want nil, ErrInvalidJSON", tt.in, out, err)
			}
		})
	}
}

func TestIsSecretKey(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"password", true}, {"Password", true}, {"db_password", true}, {"DB-PASSWORD", true},
		{"passwd", true}, {"pwd", true}, {"passphrase", true},
		{"secret", true}, {"client_secret", true}, {"aws.secret", true},
		{"token", true}, {"access_token", true}, {"refreshToken", true}, {"GITHUB_TOKEN", true},
		{"api_key", true}, {"apiKey", true}, {"X-Api-Key", true},
		{"authorization", true}, {"Authorization", true}, {"auth", true},
		{"private_key", true}, {"aws_access_key", true}, {"secret_key", true},
		{"credentials", true}, {"cookie", true}, {"Set-Cookie", true},
		{"MYSQL_PWD", true}, {"db_passwd", true}, {"SECRET_KEY_BASE", true}, {"Proxy-Authorization", true},
		{"max_tokens", false}, {"token_count", false}, {"tokenizer", false}, {"prompt_tokens", false},
		{"key", false}, {"keys", false}, {"author", false}, {"authority", false},
		{"user", false}, {"password_required_hint", false}, {"", false},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if got := IsSecretKey(tt.key); got != tt.want {
				t.Errorf("IsSecretKey(%q) = %v, want %v", tt.key, got, tt.want)
			}
		})
	}
}

// TestSecretKeysCoverTextRuleNames: a name the text rules redact the value
// of (NAME=value, or a header for Proxy-Authorization) is a secret key,
// so the same value is redacted under that key in JSON and Value.
func TestSecretKeysCoverTextRuleNames(t *testing.T) {
	r := &Redactor{}
	for _, name := range []string{"PASSWORD", "DB_PASSWD", "MYSQL_PWD", "PASSPHRASE", "CLIENT_SECRET",
		"GITHUB_TOKEN", "X_API_KEY", "AWS_ACCESS_KEY", "AWS_SECRET_KEY", "SECRET_KEY_BASE", "SSH_PRIVATE_KEY",
		"GOOGLE_CREDENTIALS", "app-credential"} {
		if got := r.String(name + "=hunter2x"); strings.Contains(got, "hunter2x") {
			t.Fatalf("the text rules do not treat %s as secret-like: %q", name, got)
		}
		if !IsSecretKey(name) {
			t.Errorf("IsSecretKey(%q) = false, but %s=value is redacted in text", name, name)
		}
	}
	for _, h := range []string{"Authorization", "Proxy-Authorization"} {
		if got := r.String(h + ": Basic dXNlcjpwYXNzd29yZA=="); strings.Contains(got, "dXNlcjpwYXNzd29yZA") {
			t.Fatalf("the text rules do not treat the %s header as secret: %q", h, got)
		}
		if !IsSecretKey(h) {
			t.Errorf("IsSecretKey(%q) = false, but the %s header is redacted in text", h, h)
		}
	}
}
