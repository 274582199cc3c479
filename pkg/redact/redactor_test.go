package redact

import (
	"errors"
	"regexp/syntax"
	"strings"
	"sync"
	"testing"
)

const (
	awsKeyID  = "AKIAIOSFODNN7EXAMPLE"
	awsSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	jwtToken  = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	ghToken   = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
	ghPAT     = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
	openAIKey = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
)

const pemKey = `-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEAzN3Q1k7Yl1nq0bqH5T6fEXAMPLEONLYnotarealkey0123456
aGVsbG8gd29ybGQgdGhpcyBpcyBub3QgYSByZWFsIGtleQ==
-----END RSA PRIVATE KEY-----`

// stringKindCases are texts holding each kind of secret the built-in rules
// find, and their redaction.
var stringKindCases = []struct {
	name string
	in   string
	want string
}{
	{name: "aws access key id", in: "key=" + awsKeyID + " done", want: "key=[REDACTED:aws-key] done"},
	{name: "aws session key id", in: "ASIAY34FZKBOKMUTVV7A in use", want: "[REDACTED:aws-key] in use"},
	{name: "aws secret assignment", in: "aws_secret_access_key = " + awsSecret, want: "aws_secret_access_key = [REDACTED:aws-secret]"},
	{name: "aws secret env style", in: "AWS_SECRET_ACCESS_KEY=" + awsSecret + "\n", want: "AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret]\n"},
	{name: "aws secret json style", in: `{"aws_secret_access_key": "` + awsSecret + `"}`, want: `{"aws_secret_access_key": "[REDACTED:aws-secret]"}`},
	{name: "pem private key", in: "key:\n" + pemKey + "\nafter", want: "key:\n[REDACTED:private-key]\nafter"},
	{name: "pkcs8 private key", in: "-----BEGIN PRIVATE KEY-----\nMIIabc\n-----END PRIVATE KEY-----", want: "[REDACTED:private-key]"},
	{name: "openssh private key", in: "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbg==\n-----END OPENSSH PRIVATE KEY-----\n", want: "[REDACTED:private-key]\n"},
	{name: "truncated private key", in: "log: -----BEGIN EC PRIVATE KEY-----\nMHcCAQEE", want: "log: [REDACTED:private-key]"},
	{name: "two private keys", in: pemKey + "\n--\n" + pemKey, want: "[REDACTED:private-key]\n--\n[REDACTED:private-key]"},
	{name: "authorization bearer header", in: "Authorization: Bearer abcdef0123456789abcdef\r\nHost: x", want: "Authorization: [REDACTED:authorization]\r\nHost: x"},
	{name: "authorization basic header", in: "authorization: Basic dXNlcjpwYXNzd29yZA==", want: "authorization: [REDACTED:authorization]"},
	{name: "proxy authorization", in: "Proxy-Authorization: Basic dXNlcjpwYXNz", want: "Proxy-Authorization: [REDACTED:authorization]"},
	{name: "authorization bare token", in: "Authorization=0123456789abcdefXYZ", want: "Authorization=[REDACTED:authorization]"},
	{name: "bearer token alone", in: "curl -H 'X: Bearer abcdefghijklmnop0123'", want: "curl -H 'X: Bearer [REDACTED:bearer]'"},
	{name: "jwt", in: "token " + jwtToken + " expired", want: "token [REDACTED:jwt] expired"},
	{name: "openai project key", in: "OPENAI_API_KEY " + openAIKey, want: "OPENAI_API_KEY [REDACTED:openai-key]"},
	{name: "openai classic key", in: "use sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ now", want: "use [REDACTED:openai-key] now"},
	{name: "github classic token", in: "GH " + ghToken, want: "GH [REDACTED:github-token]"},
	{name: "github fine-grained token", in: ghPAT + ".", want: "[REDACTED:github-token]."},
	{name: "github app token", in: "ghs_0123456789abcdefghijABCDEFGHIJ012345", want: "[REDACTED:github-token]"},
	{name: "nats userinfo", in: "connect nats://codali:s3cr3t!@nats:4222 ok", want: "connect nats://codali:[REDACTED:password]@nats:4222 ok"},
	{name: "https userinfo", in: "https://user:hunter2@example.com/x", want: "https://user:[REDACTED:password]@example.com/x"},
	{name: "password query parameter", in: "GET /login?user=a&password=hunter2&next=/ HTTP/1.1", want: "GET /login?user=a&password=[REDACTED:credential]&next=/ HTTP/1.1"},
	{name: "token query parameter", in: "https://x/y?token=abc123", want: "https://x/y?token=[REDACTED:credential]"},
	{name: "password flag", in: "mysql --password=hunter2 db", want: "mysql --password=[REDACTED:credential] db"},
	{name: "quoted json password", in: `log {"user":"a","password":"hun\"ter2"}`, want: `log {"user":"a","password":"[REDACTED:credential]"}`},
	{name: "extra chars kept around several secrets", in: awsKeyID + "|" + ghToken, want: "[REDACTED:aws-key]|[REDACTED:github-token]"},
}

func TestStringRedactsEachKind(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range stringKindCases {
		t.Run(tt.name, func(t *testing.T) {
			got := r.String(tt.in)
			if got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := r.String(got); again != got {
				t.Errorf("String is not idempotent: %q -> %q", got, again)
			}
			if b := r.Bytes([]byte(tt.in)); string(b) != tt.want {
				t.Errorf("Bytes(%q) = %q, want %q", tt.in, b, tt.want)
			}
		})
	}
}

func TestStringLeavesOrdinaryTextAlone(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{name: "prose about secrets", in: "Rotate the token and the password; never commit a secret or an API key."},
		{name: "bearer prose", in: "The API uses Bearer authentication."},
		{name: "authorization prose", in: "Authorization: required for admin endpoints"},
		{name: "go assignment", in: `password := r.FormValue("password")`},
		{name: "go token call", in: `token, err := auth.Token(ctx)`},
		{name: "go header set", in: `req.Header.Set("Authorization", "Bearer "+tok)`},
		{name: "go env lookup", in: `cfg.Token = os.Getenv("GITHUB_TOKEN")`},
		{name: "go prefix check", in: `if strings.HasPrefix(key, "sk-") || strings.HasPrefix(key, "ghp_") {`},
		{name: "url with port", in: "https://example.com:8443/path?q=1"},
		{name: "ssh url with user only", in: "git clone ssh://git@github.com/codali-dev/codali.git"},
		{name: "certificate", in: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"},
		{name: "public key", in: "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----"},
		{name: "word containing sk-", in: "task-1234567890abcdefghijklmnop risk-assessment-document-2024"},
		{name: "short aws-like", in: "AKIA is the prefix of AWS access key ids"},
		{name: "git sha and uuid", in: "commit 3f786850e387550fdab836ed7e6dc881de23001b id 123e4567-e89b-12d3-a456-426614174000"},
		{name: "llm telemetry", in: `{"max_tokens": 4096, "token_count": 12, "prompt_tokens": 5}`},
		{name: "empty json password", in: `{"password":""}`},
		{name: "unicode", in: "naïve façade — 日本語"},
		{name: "empty", in: ""},
	}
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.in {
				t.Errorf("String changed ordinary text:\n got %q\nwant %q", got, tt.in)
			}
		})
	}
}

func TestNoMatchFastPath(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("func main() { fmt.Println(\"hello, world\") }\n", 50)
	if allocs := testing.AllocsPerRun(20, func() { r.String(text) }); allocs != 0 {
		t.Errorf("String on clean text allocated %v times, want 0", allocs)
	}
	in := []byte(text)
	out := r.Bytes(in)
	if &out[0] != &in[0] {
		t.Errorf("Bytes copied clean input")
	}
	hinted := []byte("set password= later")
	if out := r.Bytes(hinted); &out[0] != &hinted[0] {
		t.Errorf("Bytes copied input that only contains hint words")
	}
	secret := []byte("x " + awsKeyID)
	red := r.Bytes(secret)
	if string(secret) != "x "+awsKeyID || string(red) != "x [REDACTED:aws-key]" {
		t.Errorf("Bytes = %q and modified input to %q", red, secret)
	}
}

func TestZeroAndNilRedactorUseDefaults(t *testing.T) {
	var zero Redactor
	var nilRedactor *Redactor
	for name, r := range map[string]*Redactor{"zero": &zero, "nil": nilRedactor} {
		t.Run(name, func(t *testing.T) {
			if got := r.String(awsKeyID); got != "[REDACTED:aws-key]" {
				t.Errorf("String = %q", got)
			}
		})
	}
}

func TestNewExtraPatterns(t *testing.T) {
	r, err := New([]string{`internal-[0-9a-f]{8}`, `(?i)license:\s*(?P<secret>\S+)`, `x(?P<secret>[0-9]*)y`, `(?s)<vault>.*?</vault>`})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "whole match", in: "id internal-deadbeef ok", want: "id [REDACTED:custom] ok"},
		{name: "secret group only", in: "License: ABCD-1234", want: "License: [REDACTED:custom]"},
		{name: "defaults still apply", in: awsKeyID, want: "[REDACTED:aws-key]"},
		{name: "no match", in: "internal-xyz", want: "internal-xyz"},
		{name: "empty secret group left alone", in: "xy x12y", want: "xy x[REDACTED:custom]y"},
		{name: "extra pattern spans lines", in: "a <vault>\ns3cr3t\n</vault> b", want: "a [REDACTED:custom] b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNewRejectsBadPatterns(t *testing.T) {
	tests := []struct {
		name        string
		extra       []string
		wantIndexes []int
		wantSyntax  bool
	}{
		{name: "does not compile", extra: []string{`ok`, `(unclosed`}, wantIndexes: []int{1}, wantSyntax: true},
		{name: "matches empty string", extra: []string{`a*`}, wantIndexes: []int{0}},
		{name: "empty pattern", extra: []string{``}, wantIndexes: []int{0}},
		{name: "all problems reported", extra: []string{`[`, `ok`, `x?`}, wantIndexes: []int{0, 2}, wantSyntax: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := New(tt.extra)
			if r != nil || !errors.Is(err, ErrInvalidPattern) {
				t.Fatalf("New = %v, %v; want nil, ErrInvalidPattern", r, err)
			}
			joined, ok := err.(interface{ Unwrap() []error })
			if !ok {
				t.Fatalf("error %T does not join problems", err)
			}
			var got []int
			for _, e := range joined.Unwrap() {
				var pe *PatternError
				if !errors.As(e, &pe) {
					t.Fatalf("problem %v is not a *PatternError", e)
				}
				if pe.Pattern != tt.extra[pe.Index] || !strings.Contains(pe.Error(), pe.Pattern) {
					t.Errorf("PatternError %v does not name its pattern", pe)
				}
				got = append(got, pe.Index)
			}
			if len(got) != len(tt.wantIndexes) {
				t.Fatalf("rejected indexes %v, want %v", got, tt.wantIndexes)
			}
			for i := range got {
				if got[i] != tt.wantIndexes[i] {
					t.Errorf("rejected indexes %v, want %v", got, tt.wantIndexes)
				}
			}
			var se *syntax.Error
			if errors.As(err, &se) != tt.wantSyntax {
				t.Errorf("syntax error reachable = %v, want %v", !tt.wantSyntax, tt.wantSyntax)
			}
		})
	}
}

func TestRedactorConcurrent(t *testing.T) {
	r, err := New([]string{`custom-[0-9]+`})
	if err != nil {
		t.Fatal(err)
	}
	in := "a " + awsKeyID + " b custom-42 c " + ghToken
	want := r.String(in)
	var wg sync.WaitGroup
	bad := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if got := r.String(in); got != want {
					bad <- got
					return
				}
				if _, err := r.JSON([]byte(`{"password":"x","s":"` + awsKeyID + `"}`)); err != nil {
					bad <- err.Error()
					return
				}
			}
		})
	}
	wg.Wait()
	close(bad)
	for got := range bad {
		t.Errorf("concurrent result %q, want %q", got, want)
	}
}
