package redact

import (
	"regexp"
	"slices"
	"strings"
)

// rule is one compiled redaction rule.
type rule struct {
	// label names the kind of secret in the marker.
	label string
	// re finds secrets. If it has a group named "secret", only that group
	// is replaced; otherwise the whole match is.
	re *regexp.Regexp
	// group is the index of the "secret" group, or 0 for the whole match.
	group int
	// hints are lower-case substrings one of which must occur (ignoring
	// ASCII case) for re to possibly match; empty means always run re.
	hints []string
	// wholeText rules run over the whole input; the others run line by
	// line, on the lines that contain a hint.
	wholeText bool
	// pre, when set, is a cheaper exact test run after the hints: re runs
	// only where pre reports a possible match.
	pre func(string) bool
	// find, when set, replaces re: it returns the spans to replace, each
	// as {start, end}, in order and not overlapping.
	find func(string) [][]int
	// keep, when set, reports whether the span {start, end} that find or
	// re gave in the text is no secret after all and is kept; find and
	// re stay the rule's expression (TestNameFindersMatchTheirExpressions).
	keep func(s string, span []int) bool
	// findWith, when set, is find for a whole-text rule that needs to
	// know what the other rules redact: others returns its argument
	// redacted by every rule but this one (see yamlalias.go).
	findWith func(s string, others func(string) string) [][]int
	// colonWords, for a rule without hints, says that it may match only
	// where a word (a run without spaces, tabs, line breaks and quotes)
	// holds four colons: the hint scanner tracks that instead of hints.
	colonWords bool
}

// withPre adds a fine prefilter to a rule.
func withPre(r rule, pre func(string) bool) rule {
	r.pre = pre
	return r
}

// withKeep returns r keeping the spans keep reports no secret.
func withKeep(r rule, keep func(s string, span []int) bool) rule {
	r.keep = keep
	return r
}

// newRule builds a line rule around a compiled expression.
func newRule(label string, re *regexp.Regexp, hints ...string) rule {
	group := re.SubexpIndex("secret")
	if group < 0 {
		group = 0
	}
	return rule{label: label, re: re, group: group, hints: hints}
}

// wholeText marks a rule to run over the whole input.
func wholeText(r rule) rule {
	r.wholeText = true
	return r
}

// secretName matches a name that ends in a secret word (db_password,
// GITHUB_TOKEN, client-secret, apiKey, DB_PASS): the names for which
// IsSecretKey holds because of their ending. "max_tokens" and
// "token_count" do not end in one (separators after the word are
// ignored, as IsSecretKey ignores them). Names are [A-Za-z0-9_.-] runs; the
// rules put a boundary before them themselves, since \b does not separate
// "_" and a letter.
var secretName = `(?:[A-Za-z0-9_.-]*?` + secretWord() + `|` + passName + `)[_.-]*`

// secretFlagName matches the name of a flag naming a secret (--password,
// --api-key, --auth, --pass): a name secretName matches, one of the names
// secret as a whole (secretNames: auth, cookie, bearer, …) or the word
// pass alone, as isSecretFlag reads the flags of an argv in JSON, so the
// text rules and JSON's redact the value after the same flags.
var secretFlagName = `(?:` + secretName + `|[_.-]*(?:` + wholeSecretNames() + `|` + passWord + `)[_.-]*)`

// secretEqName matches the name before "=" in the NAME=value rule: a
// name secretName matches, or one of the names secret as a whole
// (secretNames) or pass, as a flag or not (--auth=…, as the flag rules
// read --auth …, and AUTH=…, as JSON redacts {"auth": …}).
var secretEqName = `(?:` + secretName + `|[_.-]*(?:` + wholeSecretNames() + `|` + passWord + `)[_.-]*)`

// wholeSecretNames is an expression matching secretNames (case is left
// to the rule), one separator allowed where a name has "_".
func wholeSecretNames() string {
	alts := make([]string, len(secretNames))
	for i, s := range secretNames {
		alts[i] = strings.ReplaceAll(regexp.QuoteMeta(s), "_", `[_.-]?`)
	}
	return strings.Join(alts, "|")
}

// flagHints are the hints of the flag rules: secretHints and every
// spelling of secretNames after a dash ("-auth": a header's
// "Authorization:" wakes no flag rule); quotedNameHints those of the
// rules reading a quoted key, the names after a quote.
var (
	flagHints       = prefixedNameHints("-")
	quotedNameHints = prefixedNameHints(`"`, "'")
	// eqHints are the NAME=value rule's: the flags' and the names secret
	// as a whole without a dash (AUTH=…).
	eqHints = prefixedNameHints("-", "")
)

// prefixedNameHints returns secretHints and every spelling of
// secretNames after each of prefixes.
func prefixedNameHints(prefixes ...string) []string {
	all := slices.Clone(secretHints)
	for _, n := range secretNames {
		for _, sp := range spellings(n) {
			for _, p := range prefixes {
				all = append(all, p+sp)
			}
		}
	}
	return minimalFragments(all)
}

// passName matches a name ending in the word pass as isPassWord accepts
// it, after a separator or as "Pass"/"PASS" after a lower-case letter or
// digit (DB_PASS, db.pass, dbPass). Unlike IsSecretKey it needs a prefix:
// "PASS: test-name" is a test harness's report, not a password.
const passName = `[A-Za-z0-9_.-]*[_.-]pass|[A-Za-z0-9_.-]*?(?-i:[a-z0-9]P)ass`

// nameSeparators are the separators a text name may hold between the
// parts of a secret word.
var nameSeparators = []string{"", "_", "-", "."}

// secretWord is an expression matching the secret suffixes (case is left
// to the rule), one separator allowed where a suffix has "_".
func secretWord() string {
	alts := make([]string, len(secretSuffixes))
	for i, s := range secretSuffixes {
		alts[i] = strings.ReplaceAll(regexp.QuoteMeta(s), "_", `[_.-]?`)
	}
	return `(?:` + strings.Join(alts, "|") + `)`
}

// secretHints are the lower-case hints of the rules built on secretName:
// every spelling of each suffix (with each separator or none where it
// has "_") and "pass", without those that contain another.
var secretHints = func() []string {
	all := []string{passWord}
	for _, s := range secretSuffixes {
		all = append(all, spellings(s)...)
	}
	return minimalFragments(all)
}()

// spellings returns s with each "_" replaced by each of nameSeparators.
func spellings(s string) []string {
	before, after, ok := strings.Cut(s, "_")
	if !ok {
		return []string{s}
	}
	var out []string
	for _, rest := range spellings(after) {
		for _, sep := range nameSeparators {
			out = append(out, before+sep+rest)
		}
	}
	return out
}

// defaultRules is the immutable built-in rule table, in the order rules are
// applied. Each hint list is lower case.
var defaultRules = []rule{
	// The value anchored where an alias under a secret-like name points
	// (x: &pw hunter2 / password: *pw, see yamlalias.go): first, before
	// any rule redacts an alias.
	aliasedAnchorRule,
	// A flag with a secret-like name and its value as two quoted items
	// of a list on lines of their own (indented JSON, a YAML flow list
	// over lines: "--password",\n  "hunter2"); on one line they are the
	// line rule's below.
	(wholeText(withPre(splitNamedRule("credential", `(?i)["']--?`, `["'][\t ]*,[\t ]*\r?\n\s*["'](?P<secret>(?:[^\s"'-]|-[^\s"'-])[^"'\r\n]*)["']`,
		splitRule{quotedDash: true}, followedBy(true, " \t", ","), flagHints...), hasQuotedDash))),
	wholeText(newRule("private-key", regexp.MustCompile(
		`(?:-+BEGIN [A-Z0-9 ]*(?:PRIVATE KEY(?: BLOCK)?|NKEY SEED)-*|BEGIN [A-Z0-9 ]*(?:PRIVATE KEY(?: BLOCK)?|NKEY SEED)-+)(?s:.*?)(?:-----END [A-Z0-9 ]*(?:PRIVATE KEY(?: BLOCK)?|NKEY SEED)-----|\z)`),
		"private key", "nkey seed")),
	// A PEM body whose BEGIN line was clipped away (a tail of the output).
	wholeText(newRule("private-key", regexp.MustCompile(
		`(?m)(?:^[A-Za-z0-9+/=]+\r?\n)+-*END [A-Z0-9 ]*(?:PRIVATE KEY(?: BLOCK)?|NKEY SEED)-*`),
		"private key", "nkey seed")),
	// Passwords in flags named for no secret: mysql -pSECRET, docker
	// login -p SECRET (see command.go). First of the line rules: a rule
	// before it could redact the command's name with the text after a
	// header (Authorization: mysqldump -uroot -pSECRET) and hide it.
	commandRule,
	splitCommandRule,
	// A flow list over several lines and a block list read as an argv
	// (see flowlist.go).
	flowListRule,
	blockListRule,
	// A flag with a secret-like name and its value as the next argument
	// (--password hunter2, --api-key …). Before the header rules, which
	// could take "tool --password" as a header's value and hide the flag
	// (Authorization: tool --password X). In these flag rules a value may
	// start with one dash (--password -Xy9: a flag naming a secret takes
	// a value), not two (--password --verbose, see isSecretFlagValue).
	// A value starting with "," after a "[" is a flow list's separator
	// ([ --password , X ]): the flow list rules' below.
	withKeep(splitNamedRule("credential", `(?i)(?:^|\s)--?`, `\s+["']?(?P<secret>(?:[^\s"'#-]|-[^\s"'-])[^\s"']*)`,
		splitRule{dash: true}, followedBy(false, "", reSpace), flagHints...), keptFlowComma),
	// The same flag and its value as one item of a flow list, a space
	// between them: quoted, the value is read up to the closing quote,
	// commas included (["--password a,b"], ['--token x']); unquoted, up to
	// a space, "," or a bracket ([--password X], [a,--token X, b]). The
	// general rule above wants a space before the flag, the flow list
	// rules below a comma after it. Only on a line with a "[".
	withPre(splitNamedRule("credential", `(?i)["']--?`, `[\t ]+["']?(?P<secret>(?:[^\s"'#-]|-[^\s"'-])[^\s"']*)["'\s]`,
		splitRule{quotedDash: true}, followedBy(false, "", " \t"), flagHints...), hasBracketAndQuotedDash),
	withPre(splitNamedRule("credential", `(?i)[\[,][\t ]*["']?--?`, `[\t ]+["']?(?P<secret>(?:[^\s"',\[\]{}#-]|-[^\s"',\[\]{}#-])[^\s"',\[\]{}]*)`,
		splitRule{flowDash: true}, followedBy(false, "", " \t"), flagHints...), hasBracket),
	newRule("authorization", regexp.MustCompile(
		`(?i)\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?P<secret>[a-z0-9_-]+ +[^\s"',;]{6,}|[^\s"',;]{16,})`),
		"authorization"),
	newRule("bearer", regexp.MustCompile(
		`(?i)\bbearer\s+(?P<secret>[a-z0-9._~+/-]{16,}=*)`),
		"bearer"),
	newRule("jwt", regexp.MustCompile(
		`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`),
		"eyj"),
	newRule("aws-key", regexp.MustCompile(
		`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`),
		"akia", "asia"),
	newRule("aws-secret", regexp.MustCompile(
		`(?i)(?:^|[^A-Za-z0-9])(?:aws_?secret_?access_?key|aws_?secret_?key|aws_?session_?token|secret_?access_?key)["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9/+=]{20,})`),
		"secret", "session_token", "sessiontoken"),
	newRule("openai-key", regexp.MustCompile(
		`\bsk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}`),
		"sk-"),
	newRule("github-token", regexp.MustCompile(
		`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b`),
		"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
	newRule("gitlab-token", regexp.MustCompile(
		`\bgl(?:pat|dt|rt|ptt|cbt|ft|imt|agent|oas|soat)-[A-Za-z0-9_-]{20,}`),
		"glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glimt-", "glagent-", "gloas-", "glsoat-"),
	newRule("slack-token", regexp.MustCompile(
		`\bxox[abposre]-[A-Za-z0-9-]{10,}`),
		"xox"),
	newRule("stripe-key", regexp.MustCompile(
		`\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`),
		"sk_live_", "sk_test_", "rk_live_", "rk_test_"),
	newRule("google-api-key", regexp.MustCompile(
		`\bAIza[0-9A-Za-z_-]{35}`),
		"aiza"),
	newRule("npm-token", regexp.MustCompile(
		`\bnpm_[A-Za-z0-9]{36}\b`),
		"npm_"),
	// NATS nkey seeds: "S" then the key type (User, Account, Operator,
	// server N, Cluster, Private, curve X) and 56 base32 characters.
	withPre(newRule("nkey-seed", regexp.MustCompile(
		`\bS[UAONCPX][A-Z2-7]{56}\b`),
		"su", "sa", "so", "sn", "sc", "sp", "sx"), hasSeedShape),
	// The user part holds no "[": a token redacted as the whole userinfo
	// (https://[REDACTED:password]@host) is no user and password.
	newRule("password", regexp.MustCompile(
		`\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@"'<>\[]*:(?P<secret>[^/\s@"'<>]+)@`),
		"://"),
	// A token given as a URL's whole userinfo (https://<token>@host, see
	// urltoken.go).
	urlTokenRule,
	// curl -u user:password, --user user:password, -uuser:password. The
	// user holds no "[": a marker's "[REDACTED:" is no user
	// ([mysql, -uroot,-p[REDACTED:password]]).
	newRule("password", regexp.MustCompile(
		`(?:^|\s)(?:-u\s*|--user(?:=|\s+))["']?[^\s:"'\[]*:(?P<secret>[^\s"']+)`),
		"-u", "--user"),
	// A .netrc entry's password (see netrc.go).
	netrcRule,
	// A .pgpass line's password (see pgpass.go).
	pgpassRule,
	// The same flag and its value as two quoted items of a list: an argv
	// in JSON text, a YAML flow list, a Python list (["--password",
	// "hunter2"], ['-api-key', '…']).
	(withPre(splitNamedRule("credential", `(?i)["']--?`, `["'][\t ]*,[\t ]*["'](?P<secret>(?:[^\s"'-]|-[^\s"'-])[^"']*)["']`,
		splitRule{quotedDash: true}, followedBy(true, " \t", ","), flagHints...), hasQuotedDash)),
	// The same flag and its value as two items of a flow list with the
	// value unquoted: a YAML flow list ([psql, --password, hunter2],
	// ["--token", abc], [--password, *pw]); a word, up to a space, ","
	// or a bracket; only on a line with a "[" (prose's "--password, or"
	// is kept).
	withPre(splitNamedRule("credential", `(?i)[\[,][\t ]*["']?--?`, `["']?[\t ]*,[\t ]*(?P<secret>(?:[^\s"',\[\]{}#-]|-[^\s"',\[\]{}#-])[^\s,\[\]{}]*)`,
		splitRule{flowDash: true}, followedBy(true, " \t", ","), flagHints...), hasBracket),
	// The same with the value quoted, the flag quoted or not
	// ([--password, "hunter2"], [ --token , 'abc' ]).
	withPre(splitNamedRule("credential", `(?i)[\[,][\t ]*["']?--?`, `["']?[\t ]*,[\t ]*["'](?P<secret>(?:[^\s"'-]|-[^\s"'-])[^"']*)["']`,
		splitRule{flowDash: true}, followedBy(true, " \t", ","), flagHints...), hasBracket),
	// NAME=value with a secret-like name: env files, shell, flags, query
	// strings (DB_PASSWORD=…, GITHUB_TOKEN=…, --password=…, ?token=…). A
	// "~" and a quote after the "=" are a PromQL regular expression
	// matcher's operator (token=~"…"): the quoted rules' value.
	withKeep(withPre(splitNamedRule("credential", `(?i)(?:^|[^A-Za-z0-9_.-])`, `=(?P<secret>[^\s&"',;<>=~][^\s&"',;<>]*|~[^\s&"',;<>]+)`,
		splitRule{flagEq: true}, followedBy(false, "", "="), eqHints...), hasSecretAssignment), keptEqValue),
	// "name": "value" in JSON with a secret-like name.
	(withPre(splitNamedRule("credential", `(?i)"`, `"\s*:\s*"(?P<secret>(?:[^"\\]|\\.)+)"`,
		splitRule{quote: true}, jsonNameFollows, secretHints...), hasSecretAssignment)),
	// "name": 1234 in JSON: a number under a secret-like name (a PIN, a
	// numeric key), as JSON redacts it under a secret key.
	(withPre(splitNamedRule("credential", `(?i)"`, `"\s*:\s*(?P<secret>-?[0-9][0-9.eE+-]*)`,
		splitRule{quote: true}, jsonNameFollows, secretHints...), hasSecretAssignment)),
	// name: value and name = value lines (YAML, INI, .env, properties):
	// the value runs to the end of the line (or a comment), so code such
	// as "Password: req.Password," or "password := x" is left alone. A
	// YAML block scalar's indicator (password: |-) is kept: its lines are
	// yamlSecretBlockRule's.
	{label: "credential", find: findSecretLines, hints: secretHints, pre: hasSecretAssignment},
	// The same lines under a name secret only as a whole (auth: …), a
	// value that looks like a secret (see wholename.go).
	wholeNameLineRule,
	// The value of a name/value pair whose name names a secret: a
	// Kubernetes env entry in YAML (- name: DB_PASSWORD / value: …) and
	// {"name": "DB_PASSWORD", "value": …} in JSON text (see textpair.go).
	yamlPairRule,
	yamlSecretBlockRule,
	yamlSecretNextRule,
	jsonTextPairRule,
	flowPairRule,
	// The values in a JSON array or object under a quoted secret-like
	// key in text (see container.go).
	secretContainerRule,
	// A plain value under a secret-like name in a YAML flow mapping
	// (db: {password: hunter2}, see flowmap.go).
	flowMappingRule,
	// A quoted value under a secret-like name continued on the lines
	// after its name's (password: "hun / ter2", see quotedlines.go).
	quotedLinesRule,
	// A quoted value after a secret-like name anywhere in a line, in the
	// forms code and data use: password: "…", password := "…",
	// password => '…', {'password': '…'}, env PASSWORD="…" cmd, and a
	// Prometheus label or PromQL matcher: {token="…"}, {token!~"…"}
	// (=~, != and !~ only right after the name: code compares with
	// spaces, password != "x").
	withPre(splitNamedRule("credential", `(?i)(?:^|[^A-Za-z0-9_.-])["']?`, `(?:["']?[\t ]*(?::=|=>|[:=])|=~|!=|!~)[\t ]*"(?P<secret>(?:[^"\\\r\n]|\\.)+)"`,
		splitRule{}, followedBy(true, " \t", ":=!"), secretHints...), hasSecretAssignment),
	withPre(splitNamedRule("credential", `(?i)(?:^|[^A-Za-z0-9_.-])["']?`, `(?:["']?[\t ]*(?::=|=>|[:=])|=~|!=|!~)[\t ]*'(?P<secret>(?:[^'\\\r\n]|\\.)+)'`,
		splitRule{}, followedBy(true, " \t", ":=!"), secretHints...), hasSecretAssignment),
	// The names secret only as a whole, quoted, with a quoted value:
	// {"auth": "…"} in a Docker config.json, {'cookie': '…'}.
	(withPre(newRule("credential", regexp.MustCompile(
		`(?i)["'][_.-]*(?:auth|cookies?|set[_.-]?cookie|bearer)[_.-]*["']\s*[:=]\s*["'](?P<secret>(?:[^"'\\\r\n]|\\.)+)["']`),
		"auth", "cookie", "bearer"), hasSecretAssignment)),
	// A Cookie or Set-Cookie header's name=value pairs.
	newRule("credential", regexp.MustCompile(
		`(?i)\b(?:set-)?cookie["']?[\t ]*:[\t ]*(?P<secret>[^\s=;"',]+=[^\r\n"']*)`),
		"cookie"),
	// .npmrc's _auth (base64 user:password), alone or per registry.
	newRule("credential", regexp.MustCompile(
		`(?im)(?:^|[/:])_auth[\t ]*=[\t ]*(?P<secret>[^\s"']+)`),
		"_auth"),
	base64PEMRule,
	k8sSecretRule,
	// An HTML form field's value under a secret-like name or of type
	// password (see htmlinput.go).
	htmlInputRule,
}

// secretLine matches a name: value or name = value line with a
// secret-like name; the "secret" group is the value.
var secretLine = regexp.MustCompile(secretLinePattern)

// secretLinePattern is secretLine's expression, also found by
// secretLineFinder.
var secretLinePattern = `(?im)^[\t ]*(?:-[\t ]+)?(?:export[\t ]+)?["']?` + secretName + `["']?[\t ]*[:=][\t ]*["']?(?P<secret>[^\s"'#(,=](?:[^"'\r\n#]*[^\s"',])?)["']?[\t ]*(?:#.*)?\r?$`

var secretLineFinder = newNameFinder(secretLinePattern, followedBy(true, " \t", ":="))

// jsonNameFollows tests what follows a name in the JSON member rules:
// the closing quote, spaces and the colon.
func jsonNameFollows(s string, e int) bool {
	return e < len(s) && s[e] == '"' && followedBy(false, reSpace, ":")(s, e+1)
}

// findSecretLines returns the spans of the values secretLine finds, but
// for the values that are only a YAML block scalar's indicator (|, >-,
// |2+) or a collection's opening bracket (password: [, its items on the
// lines after: the container rule's).
func findSecretLines(s string) [][]int {
	g := secretLine.SubexpIndex("secret")
	var locs [][]int
	secretLineFinder.each(s, func(m []int) {
		if m[2*g] < 0 {
			return
		}
		head, v := s[m[0]:m[2*g]], s[m[2*g]:m[2*g+1]]
		if !isBlockIndicator(v) && !isSecretsKeyword(head, v) && v != "[" && v != "{" {
			locs = append(locs, []int{m[2*g], m[2*g+1]})
		}
	})
	return locs
}

// isSecretsKeyword reports whether a name: value line is GitHub Actions'
// "secrets: inherit" (a reusable workflow's caller passing on all its
// secrets): the value is a keyword, not a secret. head is the line up to
// the value.
func isSecretsKeyword(head, value string) bool {
	if value != "inherit" {
		return false
	}
	head = strings.TrimRight(head, " \t:=\"'")
	return strings.EqualFold(strings.TrimLeft(head, " \t-\"'"), "secrets")
}

// isBlockIndicator reports whether v is a YAML block scalar's header:
// "|" or ">" and any indentation and chomping indicators, after an
// optional tag (!vault |, Ansible's encrypted value).
func isBlockIndicator(v string) bool {
	if strings.HasPrefix(v, "!") {
		if i := strings.IndexAny(v, " \t"); i >= 0 {
			v = strings.TrimLeft(v[i:], " \t")
		}
	}
	if v == "" || v[0] != '|' && v[0] != '>' {
		return false
	}
	return strings.Trim(v[1:], "0123456789+-") == ""
}

// spans returns the spans the rule replaces in s, each as {start, end}
// ({-1, -1} where the secret group did not take part), in order.
func (ru *rule) spans(s string) [][]int {
	if ru.find != nil {
		return ru.kept(s, ru.find(s))
	}
	if ru.re == nil {
		return nil // a findWith rule not bound to the other rules
	}
	locs := ru.re.FindAllStringSubmatchIndex(s, -1)
	for i, loc := range locs {
		locs[i] = loc[2*ru.group : 2*ru.group+2]
	}
	return ru.kept(s, locs)
}

// kept returns locs without the spans the rule's keep keeps.
func (ru *rule) kept(s string, locs [][]int) [][]int {
	if ru.keep == nil {
		return locs
	}
	return slices.DeleteFunc(locs, func(span []int) bool { return span[0] >= 0 && ru.keep(s, span) })
}

// marker returns the replacement text for a label.
func marker(label string) string { return "[REDACTED:" + label + "]" }

// hasSecretAssignment reports whether s has a ":", "=" or "!" (a PromQL
// matcher's !=, !~) preceded
// (across optional quotes, backslashes and spaces) by a name for which
// IsSecretKey holds: every name secretName matches, and a few more.
func hasSecretAssignment(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ':' && s[i] != '=' && s[i] != '!' {
			continue
		}
		j := i
		for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t' || s[j-1] == '"' || s[j-1] == '\'' || s[j-1] == '\\') {
			j--
		}
		start := j
		for start > 0 && isNameByte(s[start-1]) {
			start--
		}
		if start < j && isSecretKey(s[start:j]) {
			return true
		}
	}
	return false
}

// hasQuotedDash reports whether s holds a quote followed by a dash: a
// flag as a list's quoted item.
func hasQuotedDash(s string) bool {
	return strings.Contains(s, `"-`) || strings.Contains(s, `'-`)
}

// isNameByte reports whether c may be part of a name in the text rules:
// [A-Za-z0-9_.-].
func isNameByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '.' || c == '-'
}

// hasSeedShape reports whether s holds "S", a key type letter and 56
// base32 characters in a row: the shape of an nkey seed.
func hasSeedShape(s string) bool {
	for i := 0; i+58 <= len(s); i++ {
		j := strings.IndexByte(s[i:], 'S')
		if j < 0 || i+j+58 > len(s) {
			return false
		}
		i += j
		if strings.IndexByte("UAONCPX", s[i+1]) < 0 {
			continue
		}
		k := i + 2
		for k < i+58 && (('A' <= s[k] && s[k] <= 'Z') || ('2' <= s[k] && s[k] <= '7')) {
			k++
		}
		if k == i+58 {
			return true
		}
	}
	return false
}

// hasBracket reports whether a line holds a "[": it may hold a flow list.
func hasBracket(s string) bool { return strings.IndexByte(s, '[') >= 0 }

// hasBracketAndQuotedDash reports whether a line holds a "[" and a
// quote before a dash: it may hold a flow list's quoted flag.
func hasBracketAndQuotedDash(s string) bool { return hasBracket(s) && hasQuotedDash(s) }

// keptFlowComma reports whether the value the flag rule took is a flow
// list's separator: it starts with "," after a "[" ([ --password , X ]).
func keptFlowComma(s string, span []int) bool {
	return s[span[0]] == ',' && strings.IndexByte(s[:span[0]], '[') >= 0
}
