package redact

import "regexp"

// urlUserinfo matches a URL's userinfo without a colon
// (https://<token>@host, as git takes a token for a password); the
// "secret" group is the userinfo.
var urlUserinfo = regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.-]*://(?P<secret>[A-Za-z0-9_-]+)@`)

// urlTokenRule redacts a URL's userinfo given without a password when it
// looks like a token (see isUserinfoToken): a user name (git@…,
// https://alice@…) is kept.
var urlTokenRule = rule{label: "password", find: findURLTokens, hints: []string{"://"}}

// findURLTokens returns the spans of the token-like userinfos
// urlUserinfo finds.
func findURLTokens(s string) [][]int {
	var locs [][]int
	for _, m := range urlUserinfo.FindAllStringSubmatchIndex(s, -1) {
		if isUserinfoToken(s[m[2]:m[3]]) {
			locs = append(locs, []int{m[2], m[3]})
		}
	}
	return locs
}

// isUserinfoToken reports whether a userinfo (letters, digits, "_" and
// "-") looks like a token rather than a user name: sixteen bytes or
// more with a digit followed, later, by a letter (a token's digits are
// spread through it; a user name's, if any, end it: build-agent-2024).
func isUserinfoToken(u string) bool {
	if len(u) < 16 {
		return false
	}
	digit := false
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case '0' <= c && c <= '9':
			digit = true
		case digit && ('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'):
			return true
		}
	}
	return false
}
