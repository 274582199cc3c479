package redact

import "regexp"

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

// defaultRules is the immutable built-in rule table, in the order rules are
// applied. Each hint list is lower case.
var defaultRules = []rule{
	wholeText(newRule("private-key", regexp.MustCompile(
		`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`),
		"-----begin")),
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
		`(?i)\b(?:aws_?secret_?access_?key|aws_?secret_?key|aws_?session_?token|secret_?access_?key)["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9/+=]{20,})`),
		"secret", "session_token", "sessiontoken"),
	newRule("openai-key", regexp.MustCompile(
		`\bsk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}`),
		"sk-"),
	newRule("github-token", regexp.MustCompile(
		`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b`),
		"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
	newRule("password", regexp.MustCompile(
		`\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@"'<>]*:(?P<secret>[^/\s@"'<>]+)@`),
		"://"),
	newRule("credential", regexp.MustCompile(
		`(?i)\b(?:password|passwd|pwd|passphrase|client_secret|api_?key|access_token|refresh_token|auth_token|token|secret)=(?P<secret>[^\s&"',;<>]+)`),
		"password=", "passwd=", "pwd=", "passphrase=", "secret=", "apikey=", "api_key=", "token="),
	newRule("credential", regexp.MustCompile(
		`(?i)"(?:password|passwd|pwd|passphrase|client_?secret|secret|api_?key|access_?token|refresh_?token|auth_?token|token)"\s*:\s*"(?P<secret>(?:[^"\\]|\\.)+)"`),
		`password"`, `passwd"`, `pwd"`, `passphrase"`, `secret"`, `apikey"`, `api_key"`, `token"`),
}

// marker returns the replacement text for a label.
func marker(label string) string { return "[REDACTED:" + label + "]" }
