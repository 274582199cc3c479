package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// pluralAndCompoundKeys are secret keys the first rules missed: plurals,
// compounds ending in key or tokens, and the word pass after a separator
// or in camel case.
var pluralAndCompoundKeys = []string{
	"secrets", "client_secrets", "passwords", "db_passwords", "api_keys", "apiKeys", "API-KEYS",
	"private_keys", "privateKeys", "access_tokens", "accessTokens", "auth_tokens", "refresh_tokens",
	"refreshTokens", "session_tokens", "api_tokens", "signing_key", "signingKey", "SIGNING_KEYS",
	"encryption_key", "encryptionKey", "master_key", "MASTER_KEY", "masterKeys", "passphrases",
	"DB_PASS", "db_pass", "dbPass", "dbPASS", "db.pass", "smtp-pass", "MYSQL_PASS", "db2Pass", "pass", "PASS",
	"cookies", "access_keys", "secret_keys",
}

// nonSecretKeys are keys that must keep their values: the model usage
// counters of pkg/events, pkg/llm, pkg/docdex and the providers' usage
// objects, configuration fields naming where a secret is (not holding it),
// and words that merely contain a secret word.
var nonSecretKeys = []string{
	"tokens", "input_tokens", "output_tokens", "max_tokens", "total_tokens", "prompt_tokens",
	"completion_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "reasoning_tokens",
	"cached_tokens", "token_count", "tokenizer", "token_estimate", "maxRunTokens", "promptTokens",
	"unknownTokens", "maxTokens", "inputTokens", "outputTokens", "totalTokens", "apiKeyEnv", "tokenEnv",
	"passed", "bypass", "BYPASS", "compass", "passage", "password_policy", "passwordPolicy", "passthrough",
	"encryption", "signing", "master", "key", "keys", "name", "value", "author", "authority", "surpass",
	"tokens_per_second", "secret_count_hint", "byPassage",
}

func TestPluralAndCompoundSecretKeys(t *testing.T) {
	r := &Redactor{}
	for _, key := range pluralAndCompoundKeys {
		if !IsSecretKey(key) {
			t.Errorf("IsSecretKey(%q) = false", key)
		}
		doc := `{"` + key + `":"hunter2x","n":{"` + key + `":12345}}`
		got, err := r.JSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(got), "hunter2x") || strings.Contains(string(got), "12345") {
			t.Errorf("JSON(%s) = %s", doc, got)
		}
		v := r.Value(map[string]any{key: "hunter2x"}).(map[string]any)
		if v[key] != "[REDACTED:secret]" {
			t.Errorf("Value under %q = %v", key, v[key])
		}
	}
}

// TestNonSecretKeysSurvive: the usage counters and other ordinary keys
// keep their values in JSON, Value and every text form.
func TestNonSecretKeysSurvive(t *testing.T) {
	r := &Redactor{}
	for _, key := range nonSecretKeys {
		if IsSecretKey(key) {
			t.Errorf("IsSecretKey(%q) = true", key)
		}
		doc := `{"` + key + `":12345,"x":{"` + key + `":"plain-value"}}`
		got, err := r.JSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != doc {
			t.Errorf("JSON(%s) = %s", doc, got)
		}
		for _, text := range []string{key + "=12345", key + ": 12345\n", `"` + key + `": 12345`, `"` + key + `": "12345"`,
			"--" + key + " 12345", "export " + key + "=12345"} {
			if got := r.String(text); got != text {
				t.Errorf("String(%q) = %q", text, got)
			}
		}
	}
}

// TestTextRulesAgreeWithIsSecretKey ties the text rules to IsSecretKey:
// for names made of words, separators and other parts, NAME=value,
// name: value, "name": "value" and --name value are redacted exactly
// when IsSecretKey holds because the name ends in a secret word spelled
// as the text rules read it (one separator at most where a suffix has
// "_", none inside a word: IsSecretKey also takes "pass_word"; the names
// secret only as a whole have rules of their own or none), and never
// when IsSecretKey is false.
func TestTextRulesAgreeWithIsSecretKey(t *testing.T) {
	parts := []string{"db", "DB", "my", "x", "2", "_", "-", ".", "api", "Api", "key", "Key", "KEYS", "s", "pass",
		"Pass", "PASS", "word", "by", "com", "token", "Tokens", "tokens", "input", "max", "access", "refresh",
		"auth", "Auth", "secret", "Secret", "private", "signing", "encryption", "master", "credential", "pwd",
		"passwd", "phrase", "base", "cookie", "bearer", "count", "policy", "ization"}
	r := &Redactor{}
	forms := []func(string) string{
		func(n string) string { return n + "=v4lue" },
		func(n string) string { return "  " + n + ": v4lue\n" },
		func(n string) string { return `{"` + n + `": "v4lue"}` },
		func(n string) string { return "run --" + n + " v4lue" },
	}
	seed := uint64(1)
	next := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	secret := 0
	for range 6000 {
		var b strings.Builder
		for n := 1 + next(4); n > 0; n-- {
			b.WriteString(parts[next(len(parts))])
		}
		name := b.String()
		if strings.HasPrefix(name, "-") || strings.Contains(name, "v4lue") {
			continue
		}
		want := IsSecretKey(name) && !isSecretOnlyAsWhole(name) && endsInSpelling(name)
		if want {
			secret++
		}
		for _, form := range forms {
			in := form(name)
			got := !strings.Contains(r.String(in), "v4lue")
			if got && !IsSecretKey(name) {
				t.Fatalf("String(%q) redacts, but IsSecretKey(%q) is false", in, name)
			}
			// Redacting more is allowed for a secret key (checked above):
			// a name secret only as a whole, or a word with separators.
			if want && !got {
				t.Fatalf("String(%q) keeps the value of a secret-like name", in)
			}
		}
	}
	if secret < 900 {
		t.Errorf("only %d secret names out of 6000", secret)
	}
}

// endsInSpelling reports whether name, lower-cased and without trailing
// separators, ends in a spelling of a secret suffix or in pass.
func endsInSpelling(name string) bool {
	n := strings.TrimRight(strings.ToLower(name), "_.-")
	for _, s := range append([]string{passWord}, secretSuffixes...) {
		for _, sp := range spellings(s) {
			if strings.HasSuffix(n, sp) {
				return true
			}
		}
	}
	return false
}

// isSecretOnlyAsWhole reports whether IsSecretKey holds for name only
// because it is one of secretNames (auth, cookie, ...) or pass alone.
func isSecretOnlyAsWhole(name string) bool {
	n := strings.NewReplacer("_", "", "-", "", ".", "").Replace(strings.ToLower(name))
	for _, s := range append([]string{passWord}, secretNames...) {
		if n == normalizedKey(s) {
			for _, suffix := range secretSuffixes {
				if strings.HasSuffix(n, normalizedKey(suffix)) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// TestKeyFragmentsCoverEverySecretKey: every secret name and suffix, and
// pass, contains one of the fast path's fragments, so a document whose
// only secret is a key never takes the fast path.
func TestKeyFragmentsCoverEverySecretKey(t *testing.T) {
	r := &Redactor{}
	for i, s := range append(append(append([]string(nil), secretSuffixes...), passWord), secretNames...) {
		for _, key := range spellings(s) {
			keys := []string{key, strings.ToUpper(key)}
			if i <= len(secretSuffixes) {
				keys = append(keys, "x_"+key) // suffixes and pass end a longer key
			}
			for _, k := range keys {
				if !IsSecretKey(k) {
					t.Errorf("IsSecretKey(%q) = false", k)
				}
				doc, _ := json.Marshal(map[string]string{k: "hunter2"})
				if !r.jsonMayNeedRedaction(doc) {
					t.Errorf("%s takes the fast path", doc)
				}
			}
		}
	}
}

// TestKeyTailCoversEveryName: isSecretKey reads keyTailLen normalized
// bytes, more than every name and suffix.
func TestKeyTailCoversEveryName(t *testing.T) {
	for _, s := range append(append([]string{passWord}, secretNames...), secretSuffixes...) {
		if len(normalizedKey(s)) >= keyTailLen {
			t.Errorf("%q is longer than keyTailLen", s)
		}
	}
}

// TestAWSSecretsManagerKeys: get-secret-value's SecretString and
// SecretBinary hold the secret itself, as a key and in text.
func TestAWSSecretsManagerKeys(t *testing.T) {
	for _, k := range []string{"SecretString", "SecretBinary", "secret_string"} {
		if !IsSecretKey(k) {
			t.Errorf("IsSecretKey(%q) = false", k)
		}
	}
	in := `{"ARN": "arn:aws:secretsmanager:eu-west-1:1:secret:db", "Name": "prod/db", "SecretString": "hunter2", "VersionId": "v1"}`
	if got := (&Redactor{}).String(in); strings.Contains(got, "hunter2") || !strings.Contains(got, `"Name": "prod/db"`) {
		t.Errorf("String(%q) = %q", in, got)
	}
}

// TestUsageCountersSurvive: model usage counters and their metric names
// and labels hold the word token but no secret; no form of them is
// redacted (text, Prometheus exposition, span attributes, JSON, Value).
func TestUsageCountersSurvive(t *testing.T) {
	r := &Redactor{}
	for _, in := range []string{
		`codali_model_tokens_total{direction="input",model="gpt",phase="builder",provider="openai"} 1234`,
		"token_count=5 tokens_in=7 tokens_out=9 total_tokens=16",
		"tokens_in: 7\ntoken_count: 5\ntokens:\n  in: 7\n",
		"gen_ai.usage.input_tokens=12 gen_ai.token.type=input gen_ai.request.max_tokens=4096",
		`{"tokens_in": 7, "token_count": "5", "tokenCount": 3, "usage": {"input_tokens": 1}}`,
		"--max-tokens 4096 --tokens-in 7",
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
	doc := `{"tokens_in":7,"token_count":"5","tokenCount":3,"labels":{"gen_ai.token.type":"input","token_type":"output"},"tokens":{"in":7}}`
	if got, err := r.JSON([]byte(doc)); err != nil || string(got) != doc {
		t.Errorf("JSON(%s) = %s, %v", doc, got, err)
	}
	v := map[string]any{"tokens_in": 7, "token_count": "5", "gen_ai.token.type": "input"}
	if got := r.Value(v).(map[string]any); got["token_count"] != "5" || got["gen_ai.token.type"] != "input" || got["tokens_in"] != 7 {
		t.Errorf("Value(%v) = %v", v, got)
	}
}

// TestCommandPasswordVariables: the environment variables the
// command-line rule's clients read their password from (sshpass -e reads
// SSHPASS, redis-cli REDISCLI_AUTH, mysql MYSQL_PWD) are secret keys, in
// JSON, Value and text.
func TestCommandPasswordVariables(t *testing.T) {
	r := &Redactor{}
	for _, key := range []string{"SSHPASS", "REDISCLI_AUTH", "MYSQL_PWD"} {
		if !IsSecretKey(key) {
			t.Errorf("IsSecretKey(%q) = false", key)
		}
		in := key + "=hunter2x cmd"
		if got := r.String(in); strings.Contains(got, "hunter2x") {
			t.Errorf("String(%q) = %q", in, got)
		}
		in = "export " + key + "='hunter2x'\n"
		if got := r.String(in); strings.Contains(got, "hunter2x") {
			t.Errorf("String(%q) = %q", in, got)
		}
	}
}
