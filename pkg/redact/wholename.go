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
// %(…)s, <placeholder>).
func isTokenLike(w string) bool {
	if len(w) < 8 || strings.IndexByte("${*&!%<", w[0]) >= 0 {
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
