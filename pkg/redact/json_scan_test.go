package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// referenceJSON is JSON as it was before the scanner: the fast path as it
// was, then encoding/json's token stream for everything else.
func referenceJSON(r *Redactor, raw []byte) ([]byte, error) {
	if !refJSONMayNeedRedaction(r, raw) {
		var out bytes.Buffer
		if err := json.Compact(&out, raw); err != nil {
			return nil, fmt.Errorf("could not redact JSON: %w: %w", ErrInvalidJSON, err)
		}
		return out.Bytes(), nil
	}
	return r.jsonByTokens(raw)
}

// refJSONMayNeedRedaction is the fast path's test as it was: the whole
// text unescaped into a copy, then normalized into another, then searched
// once per fragment.
func refJSONMayNeedRedaction(r *Redactor, raw []byte) bool {
	text := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			text = append(text, c)
			continue
		}
		if i+1 >= len(raw) {
			return true
		}
		i++
		switch raw[i] {
		case 'n':
			text = append(text, '\n')
		case 'r':
			text = append(text, '\r')
		case 't':
			text = append(text, '\t')
		case '"', '\\':
			text = append(text, raw[i])
		default:
			return true
		}
	}
	if _, sc := r.ruleSet(); anyMayMatch(sc, text) {
		return true
	}
	var norm []byte
	for _, c := range text {
		switch {
		case c == '-' || c == '_' || c == '.' || c == ' ':
		case 'A' <= c && c <= 'Z':
			norm = append(norm, c+'a'-'A')
		default:
			norm = append(norm, c)
		}
	}
	for _, f := range []string{"pass", "pwd", "secret", "token", "apikey", "auth", "credential", "cookie",
		"privatekey", "accesskey", "bearer", "signingkey", "encryptionkey", "masterkey"} {
		if bytes.Contains(norm, []byte(f)) {
			return true
		}
	}
	return false
}

// checkSameAsReference fails t unless JSON gives raw the reference's bytes
// and error, and (for valid raw) the scanner gives the token path's bytes.
func checkSameAsReference(t *testing.T, r *Redactor, raw []byte) {
	t.Helper()
	if got, want := r.jsonMayNeedRedaction(raw), refJSONMayNeedRedaction(r, raw); got != want {
		t.Fatalf("jsonMayNeedRedaction(%q) = %v, want %v", raw, got, want)
	}
	got, gotErr := r.JSON(raw)
	want, wantErr := referenceJSON(r, raw)
	if !bytes.Equal(got, want) || (got == nil) != (want == nil) {
		t.Fatalf("JSON(%q)\n got %q\nwant %q", raw, got, want)
	}
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("JSON(%q): error %v, want %v", raw, gotErr, wantErr)
	}
	if gotErr != nil && !errors.Is(gotErr, ErrInvalidJSON) {
		t.Fatalf("JSON(%q): error %v does not wrap ErrInvalidJSON", raw, gotErr)
	}
	if !json.Valid(raw) {
		return
	}
	scanned := r.jsonScan(raw)
	byTokens, err := r.jsonByTokens(raw)
	if err != nil {
		t.Fatalf("token path rejects valid %q: %v", raw, err)
	}
	if !bytes.Equal(scanned, byTokens) {
		t.Fatalf("scanner(%q)\n got %q\nwant %q", raw, scanned, byTokens)
	}
}

// testRedactors are the built-in rules (zero value and New) and a
// configuration with extra patterns, which never takes the fast path.
func testRedactors(t testing.TB) []*Redactor {
	t.Helper()
	custom, err := New([]string{`internal-[0-9a-f]{8}`, `api-key: (?P<secret>\S+)`, `é+\x{2028}`})
	if err != nil {
		t.Fatal(err)
	}
	return []*Redactor{{}, custom}
}

// TestJSONScannerMatchesTokensOnTestDocuments: every document of the
// package's tests, and each text with a secret as a string, a key and a
// value under a secret key.
func TestJSONScannerMatchesTokensOnTestDocuments(t *testing.T) {
	var docs []string
	for _, c := range jsonCases {
		docs = append(docs, c.in)
	}
	for _, c := range invalidJSONCases {
		docs = append(docs, c.in)
	}
	for _, c := range fastPathCases {
		docs = append(docs, c.doc)
	}
	for _, c := range pairCases {
		docs = append(docs, c.in)
	}
	docs = append(docs, string(stateDoc))
	var texts []string
	for _, c := range knownFormatCases {
		texts = append(texts, c.in)
	}
	for _, c := range stringKindCases {
		texts = append(texts, c.in)
	}
	texts = append(texts, awsKeyID, awsSecret, jwtToken, ghToken, ghPAT, openAIKey, pemKey)
	for _, s := range texts {
		q, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(q), `{"log":`+string(q)+`,"n":1}`, `{`+string(q)+`:`+string(q)+`}`,
			`{"auth":{"k":[`+string(q)+`,1.5e3,true,null]},"x":[`+string(q)+`]}`)
	}
	for _, r := range testRedactors(t) {
		for _, d := range docs {
			checkSameAsReference(t, r, []byte(d))
		}
	}
}

// awkwardStrings are JSON string contents (escaped as they appear in a
// document) that exercise decoding and encoding: every escape, \u escapes
// in both cases, surrogate pairs and broken ones, invalid UTF-8, the
// characters encoding/json escapes, and secrets.
var awkwardStrings = []string{
	``, `a`, `plain text`, `\n\t\r\b\f\"\\\/`, `\u0000\u001f\u0007\u007f`, `\u00e9\u00E9é`,
	`\u2028\u2029`, "\u2028\u2029", `\ud83d\ude00`, `\uD83D\uDE00`, `😀`, `\ud800`, `\udc00`,
	`\ud800\u0041`, `\ud800\ud800\udc00`, `\udbff\udfff`, `\udc00\ud800`, `\ud800x`, `\ud800\n`,
	`\ufffd`, "\ufffd", "\xff", "\xc3", "\xc3(", "\xed\xa0\x80", "\xc0\x80", "\xf0\x9f\x98", "a\x80b",
	"\x7f", `<a href=\"x\">&amp;</a>`, `<>&`, `\u003c\u003e\u0026`, `\u0041KIA` + awsKeyID[4:],
	`token`, `input_tokens`, `password`, `pass\u0077ord`, `GITHUB_TOKEN=abc123def456`,
	`DB_PASSWORD=hunter2 ./run`, `-----BEGIN PRIVATE KEY-----\nMIIabc\n-----END PRIVATE KEY-----`,
	ghToken, `x ` + ghToken + ` y`, openAIKey, jwtToken, `https://u:p@host/x`, `Bearer abcdef0123456789`,
	`internal-0123abcd`, `api-key: s3cr3t`, `éé\u2028`, `curl -u alice:s3cret x`,
	`very_long_prefix_name_access_token`, `X-Api-Key`, `Set-Cookie`, `tok\u0065n`, `\u0074oken`,
}

var awkwardKeys = []string{
	`name`, `input_tokens`, `output_tokens`, `max_tokens`, `token_count`, `tokenizer`, `password`,
	`Password`, `db_pass_word`, `GITHUB_TOKEN`, `X-Api-Key`, `Authorization`, `credentials`, `auth`,
	`pass\u0077ord`, `tok\u0065n`, `\u0054OKEN`, `very_long_prefix_name_access_token`,
	`a_very_long_key_that_ends_in_secret`, `secret_but_not_at_the_end`, `--_ _--`, ``, `é`,
	"\xff", `\ud800`, `\u2028`, `a\"b\\c`, `\"`, `k`,
	`value`, `Value`, `VA_LUE`, `key`, `Name`, `n\u0061me`, `valueFrom`,
}

var awkwardNumbers = []string{
	`0`, `-0`, `1`, `-1`, `12`, `1.5`, `-1.5e-300`, `1E+10`, `1e5`, `0.000`, `2.50`,
	`12345678901234567890123`, `3.14E-2`, `0e0`, `-0.0E-0`,
}

var jsonSpaces = []string{``, ``, ``, ` `, "\n", "\t", "\r\n  "}

// randomJSON writes a random valid JSON document (by json.Valid: it may
// hold invalid UTF-8) of at most the given depth.
func randomJSON(rng *rand.Rand, b *strings.Builder, depth int) {
	sp := func() { b.WriteString(jsonSpaces[rng.IntN(len(jsonSpaces))]) }
	str := func() {
		b.WriteByte('"')
		for n := rng.IntN(4); n > 0; n-- {
			b.WriteString(awkwardStrings[rng.IntN(len(awkwardStrings))])
		}
		b.WriteByte('"')
	}
	sp()
	kind := rng.IntN(10)
	if depth <= 0 && kind >= 7 {
		kind = rng.IntN(7)
	}
	switch kind {
	case 0, 1, 2:
		str()
	case 3, 4:
		b.WriteString(awkwardNumbers[rng.IntN(len(awkwardNumbers))])
	case 5:
		b.WriteString([]string{"true", "false", "null"}[rng.IntN(3)])
	case 6:
		b.WriteString([]string{"{}", "[]", "{ }", "[\n]"}[rng.IntN(4)])
	case 7, 8:
		if rng.IntN(4) == 0 {
			randomPair(rng, b, depth)
			break
		}
		b.WriteByte('{')
		for i, n := 0, 1+rng.IntN(4); i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			sp()
			if rng.IntN(2) == 0 {
				b.WriteString(`"` + awkwardKeys[rng.IntN(len(awkwardKeys))] + `"`)
			} else {
				str()
			}
			sp()
			b.WriteByte(':')
			randomJSON(rng, b, depth-1)
		}
		b.WriteByte('}')
	default:
		b.WriteByte('[')
		for i, n := 0, 1+rng.IntN(4); i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			randomJSON(rng, b, depth-1)
		}
		b.WriteByte(']')
	}
	sp()
}

// pairNames are the values of "name" members in random pair objects:
// secret names, escaped ones and ordinary ones.
var pairNames = []string{`DB_PASSWORD`, `api_token`, `PORT`, `DB_PASS\u0057ORD`, `max_tokens`, `dbPass`, `bypass`, `\ud800token`}

// randomPair writes an object holding a name or key member and a value
// member, in either order, among other members.
func randomPair(rng *rand.Rand, b *strings.Builder, depth int) {
	members := []string{
		`"` + []string{"name", "key", "Name", "KEY", "n_a_m_e"}[rng.IntN(5)] + `":"` + pairNames[rng.IntN(len(pairNames))] + `"`,
		`"` + []string{"value", "Value", "VALUE", "val"}[rng.IntN(4)] + `":`,
	}
	if rng.IntN(3) == 0 { // a Kubernetes Secret, or an object of another kind
		members = []string{
			`"` + []string{"kind", "Kind"}[rng.IntN(2)] + `":"` + []string{"Secret", "ConfigMap", `Secret`, "secret"}[rng.IntN(4)] + `"`,
			`"` + []string{"data", "stringData", "binaryData"}[rng.IntN(3)] + `":`,
		}
	}
	var v strings.Builder
	randomJSON(rng, &v, depth-1)
	members[1] += v.String()
	if rng.IntN(4) == 0 { // a command and its arguments in two members
		members = []string{
			`"` + []string{"command", "cmd", "Command", "program"}[rng.IntN(4)] + `":` + []string{`"mysql"`, `["docker","login"]`, `"docker"`, `["ls"]`, `1`, `[1]`, `"my\u0073ql -uroot"`}[rng.IntN(7)],
			`"` + []string{"args", "Args", "arguments", "argv"}[rng.IntN(4)] + `":` + []string{`["-uroot","-pS3CRET"]`, `["login","-p","S3CRET"]`, `["-p","S3CRET"]`, `["mysql","-pX"]`, `"-pS3CRET"`, `["-pX",2]`, `"login -p S3CRET"`, `"-uroot -p\"S3 CRET\" db"`}[rng.IntN(8)],
		}
		if rng.IntN(3) == 0 { // a second command member
			members = append(members, `"cmd":`+[]string{`"mysql"`, `"ls"`, `{"a":"mysql"}`, `[["mysql"]]`}[rng.IntN(4)])
		}
	}
	for n := rng.IntN(3); n > 0; n-- {
		var o strings.Builder
		randomJSON(rng, &o, depth-1)
		members = append(members, `"`+awkwardKeys[rng.IntN(len(awkwardKeys))]+`":`+o.String())
	}
	rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	b.WriteString("{" + strings.Join(members, ",") + "}")
}

// TestJSONScannerMatchesTokensOnRandomDocuments: random documents full of
// awkward strings, secret keys at every depth, numbers and whitespace,
// and invalid documents made from them by truncating, deleting or
// inserting a byte (their errors must be the same too).
func TestJSONScannerMatchesTokensOnRandomDocuments(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	redactors := testRedactors(t)
	mutations := []string{`{`, `}`, `[`, `]`, `"`, `,`, `:`, `\`, ` `, "\x00", `0`, `-`, `e`, `u`, `t`}
	invalid := 0
	for range 3000 {
		var b strings.Builder
		randomJSON(rng, &b, 1+rng.IntN(5))
		doc := []byte(b.String())
		if !json.Valid(doc) {
			t.Fatalf("generated an invalid document: %q", doc)
		}
		r := redactors[rng.IntN(len(redactors))]
		checkSameAsReference(t, r, doc)

		bad := bytes.Clone(doc)
		i := rng.IntN(len(doc) + 1)
		switch rng.IntN(3) {
		case 0:
			bad = bad[:i]
		case 1:
			if i < len(bad) {
				bad = append(bad[:i], bad[i+1:]...)
			}
		default:
			bad = append(bad[:i], append([]byte(mutations[rng.IntN(len(mutations))]), doc[i:]...)...)
		}
		if !json.Valid(bad) {
			invalid++
		}
		checkSameAsReference(t, r, bad)
	}
	if invalid < 1000 {
		t.Errorf("only %d invalid documents out of 3000 mutations", invalid)
	}
}

// TestJSONInvalidInputErrors: inputs json.Valid rejects keep the token
// path's errors, including those the decoder reads past.
func TestJSONInvalidInputErrors(t *testing.T) {
	docs := []string{
		"{\"a\":\"\x01\"}", `"\u12"`, `"\'"`, `{"a":1}}`, `[1,]`, `[01]`, `{"a":tru}`, `nul`, `"abc`,
		`{"password":"x"} {"password":"y"}`, `{"password":}`, `[1 2]`, `{"a":1 "b":2}`, "\xef\xbb\xbf{}",
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001), // deeper than json.Valid allows
		`{"token":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	}
	for _, r := range testRedactors(t) {
		for _, d := range docs {
			checkSameAsReference(t, r, []byte(d))
		}
	}
}

// TestJSONDeepDocuments: the deepest documents json.Valid accepts go
// through the scanner (recursively) and give the token path's bytes.
func TestJSONDeepDocuments(t *testing.T) {
	const depth = 10000
	docs := []string{
		strings.Repeat("[", depth) + strings.Repeat("]", depth),
		strings.Repeat(`{"token":`, depth-1) + `{"a":1}` + strings.Repeat("}", depth-1),
		strings.Repeat(`[{"x":"`+ghToken+`","n":[`, depth/3-1) + "[]" + strings.Repeat("]}]", depth/3-1),
		// Name/value pairs at every level, the name after the value: each
		// level's value is redacted because of a name read later.
		strings.Repeat(`{"value":`, depth-1) + `"hunter2"` + strings.Repeat(`,"name":"DB_PASSWORD"}`, depth-1),
		strings.Repeat(`{"value":`, depth-1) + `"hunter2"` + strings.Repeat(`,"name":"PORT"}`, depth-1),
	}
	for _, d := range docs {
		if !json.Valid([]byte(d)) {
			t.Fatalf("json.Valid rejects a document %d deep", depth)
		}
		checkSameAsReference(t, &Redactor{}, []byte(d))
	}
}

// refIsSecretKey is IsSecretKey the simple way: the whole key normalized
// into a new string (isSecretKey reads only its tail), the names and
// suffixes written out, and the word pass found by a regular expression.
func refIsSecretKey(key string) bool {
	k := strings.Map(func(c rune) rune {
		switch {
		case c == '-' || c == '_' || c == '.' || c == ' ':
			return -1
		case 'A' <= c && c <= 'Z':
			return c + 'a' - 'A'
		}
		return c
	}, key)
	switch k {
	case "authorization", "proxyauthorization", "auth", "cookie", "cookies", "setcookie", "bearer":
		return true
	}
	for _, suffix := range []string{"password", "passwords", "passwd", "pwd", "passphrase", "passphrases",
		"secret", "secrets", "token", "accesstokens", "authtokens", "refreshtokens", "sessiontokens", "apitokens",
		"apikey", "apikeys", "accesskey", "accesskeys", "secretkey", "secretkeys", "secretkeybase",
		"privatekey", "privatekeys", "signingkey", "signingkeys", "encryptionkey", "encryptionkeys",
		"masterkey", "masterkeys", "credential", "credentials"} {
		if strings.HasSuffix(k, suffix) {
			return true
		}
	}
	// pass as a word: its letters with separators between them, at the
	// start, after a byte that is not a letter or digit, or a camel-case
	// "P" after a lower-case letter or digit; then only separators.
	return refPassWord.MatchString(key)
}

var refPassWord = regexp.MustCompile(`(?:(?:^|[^A-Za-z0-9])[pP]|[a-z0-9]P)[-_. ]*[aA][-_. ]*[sS][-_. ]*[sS][-_. ]*$`)

// TestIsSecretKeyMatchesReference: keys made of the names, suffixes,
// separators and other bytes in any case and order, and longer than the
// part isSecretKey reads.
func TestIsSecretKeyMatchesReference(t *testing.T) {
	parts := []string{"pass", "word", "password", "Token", "TOKEN", "api", "Key", "secret", "auth",
		"orization", "credential", "s", "_", "-", ".", " ", "x", "é", "\xff", "cookie", "set", "private",
		"access", "bearer", "pwd", "phrase", "very_long_prefix_", "0123456789abcdef", "Proxy-", "wd",
		"Key_Base", "base", "Pass", "PASS", "by", "db", "s", "tokens", "refresh", "signing", "Encryption",
		"master_", "keys", "input_", "P", "ass", "2", "secrets", "Cookies"}
	// The longest names and suffixes, whole and behind a prefix.
	fixed := []string{"Proxy-Authorization", "x_proxy_authorization", "Authorization", "SECRET_KEY_BASE",
		"my.secret-key.base", "very_long_prefix_credentials", "very_long_prefix_secret_key_base"}
	rng := rand.New(rand.NewPCG(3, 4))
	secret := 0
	for i := range 20000 + len(fixed) {
		var b strings.Builder
		if i < len(fixed) {
			b.WriteString(fixed[i])
		}
		for n := rng.IntN(6); i >= len(fixed) && n > 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		key := b.String()
		want := refIsSecretKey(key)
		if got := IsSecretKey(key); got != want {
			t.Fatalf("IsSecretKey(%q) = %v, want %v", key, got, want)
		}
		if got := isSecretKey([]byte(key)); got != want {
			t.Fatalf("isSecretKey([]byte(%q)) = %v, want %v", key, got, want)
		}
		if want {
			secret++
		}
	}
	if secret < 2000 {
		t.Errorf("only %d secret keys out of 20000", secret)
	}
}

// FuzzJSON: for any input, JSON gives the bytes and the error the
// reference gives, and the scanner the token path's bytes.
func FuzzJSON(f *testing.F) {
	for _, c := range jsonCases {
		f.Add([]byte(c.in))
	}
	for _, c := range invalidJSONCases {
		f.Add([]byte(c.in))
	}
	for _, c := range fastPathCases {
		f.Add([]byte(c.doc))
	}
	for _, c := range pairCases {
		f.Add([]byte(c.in))
	}
	for _, c := range splitCommandDocs {
		f.Add([]byte(c.in))
	}
	for _, c := range composeDocs {
		f.Add([]byte(c.in))
	}
	f.Add(stateDoc)
	f.Add([]byte(`{"pass\u0077ord":["\ud83d\ude00\ud800\u0041","` + "\xff\u2028" + `",-1.5e-3]}`))
	redactors := testRedactors(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, r := range redactors {
			checkSameAsReference(t, r, raw)
		}
		if got, want := isSecretKey(raw), refIsSecretKey(string(raw)); got != want {
			t.Fatalf("isSecretKey(%q) = %v, want %v", raw, got, want)
		}
	})
}

// TestJSONFastPathDecisionMatchesReference: texts made of the fragments'
// pieces in any case, separators, escapes (also a trailing backslash) and
// other bytes get the fast path exactly when they did before.
func TestJSONFastPathDecisionMatchesReference(t *testing.T) {
	pieces := []string{"pa", "ss", "PA", "Ss", "pw", "d", "sec", "RET", "to", "ken", "t", "oken", "api", "key",
		"au", "th", "cred", "ential", "coo", "kie", "priv", "ate", "acc", "ess", "bear", "er", "b", "c",
		"-", "_", ".", " ", `\n`, `\t`, `\r`, `\"`, `\\`, `\u0041`, `\/`, `\`, "x", "é", `{"`, `":`, "1", "\n"}
	rng := rand.New(rand.NewPCG(9, 10))
	r := &Redactor{}
	fast := 0
	for range 20000 {
		var b strings.Builder
		for n := rng.IntN(6); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		raw := []byte(b.String())
		want := refJSONMayNeedRedaction(r, raw)
		if got := r.jsonMayNeedRedaction(raw); got != want {
			t.Fatalf("jsonMayNeedRedaction(%q) = %v, want %v", raw, got, want)
		}
		if !want {
			fast++
		}
	}
	t.Logf("%d of 20000 texts take the fast path", fast)
	if fast < 2000 || fast > 18000 {
		t.Errorf("%d of 20000 texts take the fast path: too few of one kind", fast)
	}
}
