package redact

import (
	"slices"
	"strings"
)

// YAML aliases. A value that is only an alias (password: *pw) names an
// anchor; the secret is the anchored value (x: &pw hunter2), which
// aliasedAnchorRule redacts wherever the anchor is set when an alias the
// other rules redact refers to it: an alias is secret when it stands
// where a secret would be redacted, in any of the forms the rules know
// (password: *pw, password: / *pw, {password: *pw}, - name: DB_PASSWORD /
// value: *pw, ...). The rule asks the other rules: it counts the alias
// tokens of each anchored name in the text before and after the other
// rules redact it, and an alias that disappeared was secret. It runs
// first, before any rule could redact an alias. An anchored value
// that is itself an alias (y: &b *a) makes its anchor secret too.
//
// The alias itself is redacted by the rule that found it: the rules read
// lines, and on its own line "*hunter2" may as well be a password that
// starts with "*" (a YAML alias needs its anchor, which only the whole
// text shows). A value anchored under a secret-like name
// (password: &pw hunter2) is the name rules' already. See yamlanchor.go
// for the anchored values.
var aliasedAnchorRule = rule{label: "credential", findWith: findAliasedAnchors, hints: flagHints, wholeText: true,
	pre: func(s string) bool { return strings.IndexByte(s, '*') >= 0 && strings.IndexByte(s, '&') >= 0 }}

// yamlToken is an anchor (&name) or an alias (*name) in text: where its
// "&" or "*" is, where its name ends.
type yamlToken struct{ at, end int }

// yamlTokens returns the tokens of s starting with c ('&' or '*'), by
// name: c and a name of the bytes YAML allows in one (isAnchorByte), at
// the start of a line or after a space, a tab or one of before, and
// followed by the end of a line, a space or one of after. When only is
// set, only the names in it are kept.
func yamlTokens(s string, c byte, before, after string, only map[string][]yamlToken) map[string][]yamlToken {
	var toks map[string][]yamlToken
	for i := 0; i < len(s); i++ {
		j := strings.IndexByte(s[i:], c)
		if j < 0 {
			break
		}
		at := i + j
		e := at + 1
		for e < len(s) && isAnchorByte(s[e]) {
			e++
		}
		i = e - 1
		if e == at+1 || at > 0 && strings.IndexByte(" \t\n"+before, s[at-1]) < 0 ||
			e < len(s) && strings.IndexByte(" \t\r\n"+after, s[e]) < 0 {
			continue
		}
		name := s[at+1 : e]
		if only != nil && only[name] == nil {
			continue
		}
		if toks == nil {
			toks = map[string][]yamlToken{}
		}
		toks[name] = append(toks[name], yamlToken{at: at, end: e})
	}
	return toks
}

// Where anchors and aliases stand: after the start of a line, a space or
// a tab, or one of these (a flow collection's, a key's colon, an item's
// dash); followed by the end of a line, a space or one of these.
const (
	anchorBefore = ":-[{,"
	anchorAfter  = ""
	aliasBefore  = ":[{,"
	aliasAfter   = ",]}"
)

// findAliasedAnchors returns the spans of the values anchored with the
// names of the aliases that others (the other rules) redact.
func findAliasedAnchors(s string, others func(string) string) [][]int {
	anchors := yamlTokens(s, '&', anchorBefore, anchorAfter, nil)
	if anchors == nil {
		return nil
	}
	aliases := yamlTokens(s, '*', aliasBefore, aliasAfter, anchors)
	if aliases == nil {
		return nil
	}
	left := yamlTokens(others(s), '*', aliasBefore, aliasAfter, aliases)
	var secret []string
	for name, toks := range aliases {
		if len(left[name]) < len(toks) {
			secret = append(secret, name)
		}
	}
	var locs [][]int
	var set []yamlToken
	for done := map[string]bool{}; len(secret) > 0; {
		name := secret[len(secret)-1]
		secret = secret[:len(secret)-1]
		if done[name] {
			continue
		}
		done[name] = true
		set = append(set, anchors[name]...)
		for _, a := range anchors[name] {
			// An anchored alias (y: &b *a) holds the secret of its anchor.
			if v := anchorLineValue(s, a.end); len(v) > 1 && v[0] == '*' && anchors[v[1:]] != nil && isAlias(v) {
				secret = append(secret, v[1:])
			}
		}
	}
	slices.SortFunc(set, func(a, b yamlToken) int { return a.at - b.at })
	var ln anchorLine
	end := -1
	for _, a := range set {
		if a.at < end {
			continue // inside the value of an anchor before it
		}
		var spans [][]int
		spans, end = anchoredValue(s, a, &ln)
		locs = append(locs, spans...)
	}
	return sortSpans(locs)
}

// isAnchorByte reports whether c may be part of an anchor's name: YAML
// allows any byte but a space, a control character and a flow indicator
// (&db:pass, &pw/1, &clé).
func isAnchorByte(c byte) bool {
	return c > ' ' && c != 0x7f && strings.IndexByte(",[]{}", c) < 0
}

// isAlias reports whether v is only an alias: "*" and a name.
func isAlias(v string) bool {
	for i := 1; i < len(v); i++ {
		if !isAnchorByte(v[i]) {
			return false
		}
	}
	return len(v) > 1 && v[0] == '*'
}

// anchorLineValue returns the word after an anchor's name (s[i:] starts
// after it) on its line, without a flow indicator after it.
func anchorLineValue(s string, i int) string {
	i = skipBlanks(s, i, len(s))
	e := i
	for e < len(s) && strings.IndexByte(" \t\r\n", s[e]) < 0 {
		e++
	}
	return strings.TrimRight(s[i:e], ",]}")
}
