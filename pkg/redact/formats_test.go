package redact

import (
	"strings"
	"testing"
)

const natsSeed = "SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTC4"

// knownFormatCases are texts holding a secret of a known format or a
// secret-like name: in, its redaction want, and the secret.
var knownFormatCases = []struct{ name, in, want, secret string }{
	{"env after underscore", "DB_PASSWORD=hunter2 ./run", "DB_PASSWORD=[REDACTED:credential] ./run", "hunter2"},
	{"github token variable", "GITHUB_TOKEN=abc123def456", "GITHUB_TOKEN=[REDACTED:credential]", "abc123def456"},
	{"export", "export API_KEY=k3y-value", "export API_KEY=[REDACTED:credential]", "k3y-value"},
	{"camel case name", "clientSecret=s3cr3tvalue&x=1", "clientSecret=[REDACTED:credential]&x=1", "s3cr3tvalue"},
	{"yaml password", "db:\n  password: hunter2\n  user: app\n", "db:\n  password: [REDACTED:credential]\n  user: app\n", "hunter2"},
	{"yaml quoted", "  api_key: \"abc def\"  # prod\n", "  api_key: \"[REDACTED:credential]\"  # prod\n", "abc def"},
	{"yaml list item", "- auth_token: tok123\n", "- auth_token: [REDACTED:credential]\n", "tok123"},
	{"ini with spaces", "secret = pa55word\n", "secret = [REDACTED:credential]\n", "pa55word"},
	{"json suffix name", `{"db_password": "hunter2"}`, `{"db_password": "[REDACTED:credential]"}`, "hunter2"},
	{"json number value", `{"pin_password": 482913, "user": "x"}`, `{"pin_password": [REDACTED:credential], "user": "x"}`, "482913"},
	{"pretty json number value", "{\n  \"api_key\": -7.25e3,\n  \"n\": 1\n}", "{\n  \"api_key\": [REDACTED:credential],\n  \"n\": 1\n}", "7.25e3"},
	{"env pass after underscore", "DB_PASS=hunter2 ./run", "DB_PASS=[REDACTED:credential] ./run", "hunter2"},
	{"camel case pass", "dbPass=hunter2&x=1", "dbPass=[REDACTED:credential]&x=1", "hunter2"},
	{"yaml signing key", "jwt:\n  signing_key: s1gn1ngk3y\n", "jwt:\n  signing_key: [REDACTED:credential]\n", "s1gn1ngk3y"},
	{"yaml master key", "MASTER_KEY: 0123abcd\n", "MASTER_KEY: [REDACTED:credential]\n", "0123abcd"},
	{"json plural tokens", `{"refresh_tokens": "rt-1"}`, `{"refresh_tokens": "[REDACTED:credential]"}`, "rt-1"},
	{"env plural secrets", "CLIENT_SECRETS=cs-9 x", "CLIENT_SECRETS=[REDACTED:credential] x", "cs-9"},
	{"flag encryption key", "tool --encryption-key ek-77 run", "tool --encryption-key [REDACTED:credential] run", "ek-77"},
	{"slack bot token", "SLACK xoxb-1234567890-abcdefghij", "SLACK [REDACTED:slack-token]", "xoxb-1234567890-abcdefghij"},
	{"stripe live key", "key sk_live_" + strings.Repeat("a1", 12), "key [REDACTED:stripe-key]", "sk_live_" + strings.Repeat("a1", 12)},
	{"google api key", "k=AIzaSyA" + strings.Repeat("b", 32) + ";", "k=[REDACTED:google-api-key];", "AIzaSyA" + strings.Repeat("b", 32)},
	{"gitlab token", "glpat-" + strings.Repeat("x", 20) + " used", "[REDACTED:gitlab-token] used", "glpat-" + strings.Repeat("x", 20)},
	{"npm token", "//registry/:_authToken npm_" + strings.Repeat("Z", 36), "//registry/:_authToken [REDACTED:npm-token]", "npm_" + strings.Repeat("Z", 36)},
	{"nats user seed", "seed " + natsSeed + "\n", "seed [REDACTED:nkey-seed]\n", natsSeed},
	{"nats account seed", "SA" + natsSeed[2:], "[REDACTED:nkey-seed]", "SA" + natsSeed[2:]},
	{"nats operator seed", "SO" + natsSeed[2:], "[REDACTED:nkey-seed]", "SO" + natsSeed[2:]},
	{"nats creds block", "-----BEGIN USER NKEY SEED-----\n" + natsSeed + "\n------END USER NKEY SEED------\n", "[REDACTED:private-key]-\n", natsSeed},
	{"curl -u", "curl -u alice:s3cret https://x", "curl -u alice:[REDACTED:password] https://x", "s3cret"},
	{"curl --user=", "curl --user=alice:s3cret https://x", "curl --user=alice:[REDACTED:password] https://x", "s3cret"},
	{"curl -u glued", "curl -ualice:s3cret x", "curl -ualice:[REDACTED:password] x", "s3cret"},
	{"pem clipped header", "BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAzN3Q1k7Y\n", "[REDACTED:private-key]", "MIIEowIBAAKCAQEAzN3Q1k7Y"},
	{"pem clipped to its tail", "owIBAAKCAQEAzN3Q1k7Y\naGVsbG8gd29ybGQ=\n-----END RSA PRIVATE KEY-----\ndone", "[REDACTED:private-key]\ndone", "owIBAAKCAQEAzN3Q1k7Y"},
	{"pem without end", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B", "[REDACTED:private-key]", "MIIEvQIBADANBgkqhkiG9w0B"},
}

// TestKnownFormatsAndSecretNames covers the token formats and the
// NAME=value / name: value forms with secret-like names; each input holds a
// secret that must not survive, and the output must be exactly as shown.
func TestKnownFormatsAndSecretNames(t *testing.T) {
	r := &Redactor{}
	for _, tt := range knownFormatCases {
		t.Run(tt.name, func(t *testing.T) {
			got := r.String(tt.in)
			if strings.Contains(got, tt.secret) {
				t.Fatalf("String(%q) = %q still holds %q", tt.in, got, tt.secret)
			}
			if got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestSecretNamesLeaveCodeAlone: code and ordinary settings whose names
// merely contain a secret-like word are not redacted.
func TestSecretNamesLeaveCodeAlone(t *testing.T) {
	r := &Redactor{}
	for _, in := range []string{
		"max_tokens=512",
		"token_count: 3\n",
		"\tpassword := os.Getenv(\"DB_PASSWORD\")\n",
		"\tif password == \"\" {\n",
		"\t\tPassword: req.Password,\n",
		"\ttoken, err := lex.Next()\n",
		"// password: see the docs, section 3,\n",
		"tokenizer: bert\n",
		"go test -run TestToken ./...",
		"sure, sample, solution: SUPERCALIFRAGILISTIC",
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}

func TestSecretFlagsAndNames(t *testing.T) {
	r := &Redactor{}
	for _, in := range []string{
		"mysql --password hunter2hunter2 -h db",
		"tool --api-key abcdef123456 run",
		"SECRET_KEY_BASE=9f8e7d6c5b4a39281706",
	} {
		for _, secret := range []string{"hunter2hunter2", "abcdef123456", "9f8e7d6c5b4a39281706"} {
			if strings.Contains(in, secret) && strings.Contains(r.String(in), secret) {
				t.Errorf("%q: secret kept: %q", in, r.String(in))
			}
		}
	}
	if got := r.String("go test --count 3 ./..."); got != "go test --count 3 ./..." {
		t.Errorf("a plain flag was redacted: %q", got)
	}
}
