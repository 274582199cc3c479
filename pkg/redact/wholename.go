package redact

import (
	"regexp"
	"strings"
)

// wholeNameLine matches a name: value or name = value line whose name is
// one of the names secret only as a whole (auth, bearer, cookie, …, see
// secretNames), as JSON redacts {"auth": …}; the "secret" group is the
// value, one word.
var wholeNameLine = regexp.MustCompile(`(?im)^[\t ]*(?:-[\t ]+)?(?:export[\t ]+)?["']?[_.-]*(?:` + wholeSecretNames() +
	`)[_.-]*["']?[\t ]*[:=][\t ]*["']?(?P<secret>[^\s"'#]+)["']?[\t ]*(?:#.*)?\r?$`)

// wholeNameLineRule redacts the value of such a line when it looks like
// a secret (see isTokenLike): these names also head settings whose value
// is a word (auth: required, auth: basic, cookie: none), which are kept.
var wholeNameLineRule = rule{label: "credential", find: findWholeNameLines,
	hints: wholeNameHints(), pre: hasSecretAssignment}

// wholeNameHints are the spellings of secretNames, without those that
// contain another (auth, cookie, bearer).
func wholeNameHints() []string {
	var all []string
	for _, n := range secretNames {
		all = append(all, spellings(n)...)
	}
	return minimalFragments(all)
}

// findWholeNameLines returns the spans of the token-like values
// wholeNameLine finds.
func findWholeNameLines(s string) [][]int {
	g := wholeNameLine.SubexpIndex("secret")
	var locs [][]int
	for _, m := range wholeNameLine.FindAllStringSubmatchIndex(s, -1) {
		if m[2*g] >= 0 && isTokenLike(s[m[2*g]:m[2*g+1]]) {
			locs = append(locs, []int{m[2*g], m[2*g+1]})
		}
	}
	return locs
}

// isTokenLike reports whether a word looks like a secret rather than a
// setting's keyword: eight bytes or more, holding a digit, an upper-case
// letter after its first byte, or one of "+/=" (base64), and not
// starting like a reference ($VAR, ${…}, {{ … }}, *alias, &anchor, !tag,
// %(…)s, <placeholder>) nor reading as code (see looksLikeCode: Auth:
// []AuthMethod{, cookie = uintptr(r0)) or a Go struct literal's field
// value, ending in "," (Auth: TPMRHOwner,).
func isTokenLike(w string) bool {
	if len(w) < 8 || strings.IndexByte("${*&!%<", w[0]) >= 0 || looksLikeCode(w) || strings.HasSuffix(w, ",") {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if '0' <= c && c <= '9' || i > 0 && 'A' <= c && c <= 'Z' || c == '+' || c == '/' || c == '=' {
			return true
		}
	}
	return false
}

// keptEqValue reports whether the NAME=value rule keeps the value after
// the name run: under a name secret only as a whole without a dash
// (auth=, cookie=, pass=, Authorization=), a setting's word (auth=1,
// auth=true: a query's switch), a format verb (pass=%#v,
// Authorization=%q in a format string), a placeholder in braces
// (auth={password}) or code (const cookie=parseInt(x)). The span is
// the value's in s, just after the "=".
func keptEqValue(s string, span []int) bool {
	nb := span[0] - 1
	for nb > 0 && isNameByte(s[nb-1]) {
		nb--
	}
	name, value := s[max(nb, 0):max(span[0]-1, 0)], s[span[0]:span[1]]
	if name == "" || name[0] == '-' || nameRe.MatchString(shortNameRun(name)) {
		return false
	}
	return isSettingWord(strings.TrimRight(value, ".:")) || isFormatVerb(value) || looksLikeCode(value)
}

// looksLikeCode reports whether w reads as code: it starts as a slice or
// array type ([]AuthMethod{, [20]byte{}) or a name or selector and an
// opening bracket (PasswordAuth(nil), make(map[…]…), TPM2BAuth{,
// x.f[3]) and ends with a bracket, "," or ";", or it is a placeholder in
// braces ({password}) or a block's opening bracket alone (a NATS
// configuration's authorization={). A password holding brackets otherwise
// (hunter(2)x, x{y}z) does not.
func looksLikeCode(w string) bool {
	if w == "{" || w == "[" || w == "(" {
		return true
	}
	if w == "" || strings.IndexByte(")]}{,;", w[len(w)-1]) < 0 {
		return false
	}
	if strings.HasPrefix(w, "[") {
		i := strings.IndexByte(w, ']')
		return i > 0 && strings.Trim(w[1:i], "0123456789") == "" && i+1 < len(w)
	}
	if strings.HasPrefix(w, "{") {
		i := strings.IndexByte(w, '}')
		return i > 1 && isIdent(w[1:i])
	}
	i := strings.IndexAny(w, "([{")
	return i > 0 && isIdent(strings.ReplaceAll(w[:i], ".", "_"))
}

// isIdent reports whether w is an identifier: a letter or "_" first,
// then letters, digits and "_".
func isIdent(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		letter := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return w != ""
}

// isFormatVerb reports whether v is a printf verb (%s, %q, %#v, %-10s,
// %[1]q), a value only a format string holds.
func isFormatVerb(v string) bool {
	if len(v) < 2 || v[0] != '%' {
		return false
	}
	last := v[len(v)-1]
	if strings.IndexByte("vTtbcdoOqxXUeEfFgGsp", last) < 0 {
		return false
	}
	for i := 1; i < len(v)-1; i++ {
		if strings.IndexByte("#+- 0123456789.*[]", v[i]) < 0 {
			return false
		}
	}
	return true
}

// settingWords are the values of a switch, kept under the names secret
// only as a whole (auth=1, auth=true, auth: required).
var settingWords = []string{"0", "1", "true", "false", "yes", "no", "on", "off", "none", "null", "nil",
	"required", "optional", "enabled", "disabled"}

// isSettingWord reports whether v is one of settingWords, in any case.
func isSettingWord(v string) bool {
	for _, w := range settingWords {
		if strings.EqualFold(v, w) {
			return true
		}
	}
	return false
}
