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
	{"docker env in inspect output", `"Env": ["DB_PASSWORD=hunter2", "PATH=/bin"]`, `"Env": ["DB_PASSWORD=[REDACTED:credential]", "PATH=/bin"]`, "hunter2"},
	{"npmrc auth token", "//registry.npmjs.org/:_authToken=abc123def\n", "//registry.npmjs.org/:_authToken=[REDACTED:credential]\n", "abc123def"},
	{"npmrc legacy auth", "_auth = dXNlcjpodW50ZXIy\n", "_auth = [REDACTED:credential]\n", "dXNlcjpodW50ZXIy"},
	{"npmrc registry auth", "//npm.example.com/:_auth=dXNlcjpodW50ZXIy\n", "//npm.example.com/:_auth=[REDACTED:credential]\n", "dXNlcjpodW50ZXIy"},
	{"docker config auth", `{"auths": {"ghcr.io": {"auth": "dXNlcjpodW50ZXIy"}}}`, `{"auths": {"ghcr.io": {"auth": "[REDACTED:credential]"}}}`, "dXNlcjpodW50ZXIy"},
	{"python dict repr", `{'user': 'a', 'password': 'hunter2'}`, `{'user': 'a', 'password': '[REDACTED:credential]'}`, "hunter2"},
	{"js object literal", `const cfg = { password: "hunter2" }`, `const cfg = { password: "[REDACTED:credential]" }`, "hunter2"},
	{"go literal", `	dbPassword := "hunter2"`, `	dbPassword := "[REDACTED:credential]"`, "hunter2"},
	{"ruby hash", `{ :api_key => 'k3y-123' }`, `{ :api_key => '[REDACTED:credential]' }`, "k3y-123"},
	{"env before a command", `env DB_PASSWORD="hunter2" ./run`, `env DB_PASSWORD="[REDACTED:credential]" ./run`, "hunter2"},
	{"cookie header", "Cookie: session=hunter2abc; theme=dark\r\n", "Cookie: [REDACTED:credential]\r\n", "hunter2abc"},
	{"curl cookie", `curl -H 'Cookie: sid=hunter2abc' x`, `curl -H 'Cookie: [REDACTED:credential]' x`, "hunter2abc"},
	{"kubernetes secret tls key", "data:\n  tls.key: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlF\n  tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=\n",
		"data:\n  tls.key: [REDACTED:private-key]\n  tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=\n", "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlF"},
	{"wrapped base64 private key", "LS0tLS1CRUdJTiBPUEVOU1NIIFBSSVZBVEUgS0VZLS0tLS0K\nYjNCbGJuTnphQzFyWlhrdGRqRUFBQUFBQkc1dmJtVUFBQUFFYm05dVpRQUFB\ndone\n",
		"[REDACTED:private-key]\ndone\n", "YjNCbGJuTnphQzFyWlhrdGRqRUFBQUFBQkc1dmJtVUFBQUFFYm05dVpRQUFB"},
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
	{"env auth", "AUTH=hunter2secretvalue ./run", "AUTH=[REDACTED:credential] ./run", "hunter2secretvalue"},
	{"export auth", "export AUTH=hunter2secretvalue\n", "export AUTH=[REDACTED:credential]\n", "hunter2secretvalue"},
	{"pass with brackets", "PASS=hunter(2)x ./run", "PASS=[REDACTED:credential] ./run", "hunter(2)x"},
	{"auth query token", "GET /connz?auth=Zx9Qk2LmP7&state=closed", "GET /connz?auth=[REDACTED:credential]&state=closed", "Zx9Qk2LmP7"},
	{"env bearer mid-line", "X=1 Bearer=hunter2secretvalue cmd", "X=1 Bearer=[REDACTED:credential] cmd", "hunter2secretvalue"},
	{"yaml auth", "registry:\n  auth: hunter2secretvalue\n", "registry:\n  auth: [REDACTED:credential]\n", "hunter2secretvalue"},
	{"yaml auth base64", "auth: dXNlcjpodW50ZXIy\n", "auth: [REDACTED:credential]\n", "dXNlcjpodW50ZXIy"},
	{"ini bearer quoted", "bearer = 'abcdefgh1234' # ci\n", "bearer = '[REDACTED:credential]' # ci\n", "abcdefgh1234"},
	{"git url token userinfo", "git clone https://hunter2secretvalue@github.com/x/y.git", "git clone https://[REDACTED:password]@github.com/x/y.git", "hunter2secretvalue"},
	{"git url hex token userinfo", "remote: https://3f786850e387550fdab836ed7e6dc881de23001b@git.example.com/r", "remote: https://[REDACTED:password]@git.example.com/r", "3f786850e387550fdab836ed7e6dc881de23001b"},
	{"netrc line", "machine api.x.com login me password hunter2secretvalue\n", "machine api.x.com login me password [REDACTED:password]\n", "hunter2secretvalue"},
	{"netrc over lines", "machine api.x.com\n  login me\n  password hunter2secretvalue\nmachine b port 21 login u password s3cr3t-b", "machine api.x.com\n  login me\n  password [REDACTED:password]\nmachine b port 21 login u password [REDACTED:password]", "s3cr3t-b"},
	{"netrc host without a dot", "machine myhost login u password hunter2v", "machine myhost login u password [REDACTED:password]", "hunter2v"},
	{"netrc default", "default login x password hunter2y", "default login x password [REDACTED:password]", "hunter2y"},
	{"netrc echoed", "echo 'machine h login u password hunter2z' >> ~/.netrc", "echo 'machine h login u password [REDACTED:password]' >> ~/.netrc", "hunter2z"},
	{"netrc in json", `{"content":"machine h\n  login u\n  password hunter2w\n"}`, `{"content":"machine h\n  login u\n  password [REDACTED:password]\n"}`, "hunter2w"},
	{"percent-encoded body", "curl -d 'password%3Dhunter2secretvalue' x", "curl -d 'password%3D[REDACTED:credential]' x", "hunter2secretvalue"},
	{"percent-encoded api key", "api_key%3Dhunter2secretvalue&x=1", "api_key%3D[REDACTED:credential]&x=1", "hunter2secretvalue"},
	{"percent-encoded header", "h=Authorization%3A%20Bearer%20hunter2secretvalue", "h=Authorization%3A%20[REDACTED:authorization]", "hunter2secretvalue"},
	{"percent-encoded in a query", "https://x/cb?next=%2Flogin%3Fpassword%3Dhunter2secretvalue%26x%3D1", "https://x/cb?next=%2Flogin%3Fpassword%3D[REDACTED:credential]%26x%3D1", "hunter2secretvalue"},
	{"html decimal reference", "password&#61;hunter2secretvalue", "password&#61;[REDACTED:credential]", "hunter2secretvalue"},
	{"html hex reference", "<p>token&#x3D;abc123def&amp;x=1</p>", "<p>token&#x3D;[REDACTED:credential]&amp;x=1</p>", "abc123def"},
	{"html quoted json", "<pre>{&quot;password&quot;: &quot;hunter2secretvalue&quot;}</pre>", "<pre>{&quot;password&quot;: &quot;[REDACTED:credential]&quot;}</pre>", "hunter2secretvalue"},
	{"html input name", `<input name="password" value="hunter2secretvalue">`, `<input name="password" value="[REDACTED:credential]">`, "hunter2secretvalue"},
	{"html input type password", `<INPUT type=password id=pw value='hunter2x' />`, `<INPUT type=password id=pw value='[REDACTED:credential]' />`, "hunter2x"},
	{"html input value first", `<input value=hunter2secretvalue name="api_key">`, `<input value=[REDACTED:credential] name="api_key">`, "hunter2secretvalue"},
	{"html input after unclosed ones", `<input <input name="password" value="hunter2x">`, `<input <input name="password" value="[REDACTED:credential]">`, "hunter2x"},
	{"html input shown as text", `&lt;input name=&quot;password&quot; value=&quot;hunter2x&quot;&gt;`, `&lt;input name=&quot;password&quot; value=&quot;[REDACTED:credential]&quot;&gt;`, "hunter2x"},
	{"html input escaped", `{"html":"<input name=\"db_password\" value=\"hunter2x\">"}`, `{"html":"<input name=\"db_password\" value=\"[REDACTED:credential]\">"}`, "hunter2x"},
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
			if again := r.String(got); again != got {
				t.Errorf("String is not idempotent: %q -> %q", got, again)
			}
			if b := r.Bytes([]byte(tt.in)); string(b) != got {
				t.Errorf("Bytes(%q) = %q, want %q", tt.in, b, got)
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
		"\treturn fmt.Errorf(\"token: %w\", err)\n",
		"\tflag.String(\"password\", \"\", \"the password\")\n",
		`<input type="password" name="password" autocomplete="current-password">`,
		"\tif password == \"\" {\n",
		`	APIKeyEnv string ` + "`json:\"apiKeyEnv,omitempty\"`",
		`apiKeyEnv: "OPENAI_API_KEY"`,
		`{"max_tokens": "4096", "tokens": "12", "input_tokens": '3'}`,
		"PASSWORD_MIN_LENGTH=\"8\"",
		"the cookie: a small file",
		"AUTHOR=jane",
		`<input name="username" value="alice"> <input type="submit" value="Log in">`,
		`<input name="password" value=""> <label for="password">Password</label>`,
		`<inputs name="password" value="x">`,
		"https://x.example/search?q=a%3Db%26c%3Dd&page=2",
		"https://x.example/?redirect=%2Fhome%3Ftab%3D1 100%",
		"<p>a&#61;b &amp; c &lt; d</p>",
		"<a href=\"/reset?x=1&amp;y=2\">Reset your password</a>",
		"the machine learning login password page",
		"by default login password prompts are shown",
		"Change the default password before deploying.",
		"each machine has password protection",
		"machine learning: the default password is weak",
		"the password hunter2 is not a .netrc entry",
		"git clone https://alice@github.com/x/y.git",
		"git clone ssh://git@github.com/x/y.git",
		"https://build-agent-2024@ci.example.com/x",
		"https://jenkins_deployer_user@git.example.com/x",
		"auth: required",
		"  auth: basic\n",
		"auth: ${REGISTRY_AUTH}",
		"auth: oauth2",
		"author: Jane Doe2",
		"OAUTH=enabled",
		"GIT_AUTHOR_NAME=jane make",
		"bypass: \"yes\"",
		// Code under the names secret as a whole, found over a Go module
		// cache: struct literals, calls, format strings, query switches.
		"\t\tAuth: []AuthMethod{",
		"\t\t\tAuth:   PasswordAuth(nil),",
		"\t\tAuth: TPMRHOwner,",
		"\t\tcookies: make(map[*fileObjCookie]struct{}),",
		"\tcookie = uintptr(r0)",
		"const name=eventData[2];const cookie=parseInt(eventData[3]);",
		`t.Errorf("on request to %v, Authorization=%q, want no header", h)`,
		`fmt.Sprintf("user=%#v, pass=%#v, host=%q", u, p, h)`,
		`http.Get(url + "connz?auth=1&state=closed")`,
		`fmt.Sprintf("http://127.0.0.1:%d/connz?auth=true", port)`,
		"\tauth={password}",
		"authorization={\n  user: alice\n}",
		"type netrcLine struct {\n\tmachine  string\n\tlogin    string\n\tpassword string\n}",
		"struct netrc {\n  char *machine;\n  char *login;\n  char *password;\n};",
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
