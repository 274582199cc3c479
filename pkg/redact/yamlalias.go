package redact

import "strings"

// YAML aliases. A value that is only an alias (password: *pw) names an
// anchor; the secret is the anchored value (x: &pw hunter2), which
// aliasedAnchorRule redacts wherever the anchor is set when an alias
// under a secret-like name refers to it; a value anchored under a
// secret-like name (password: &pw hunter2) is the name rules' already.
// The alias itself is redacted too: the rules read lines, and on its own
// line "*hunter2" may as well be a password that starts with "*" (a
// YAML alias needs its anchor, which only the whole text shows).
var aliasedAnchorRule = rule{label: "credential", find: findAliasedAnchors, hints: secretHints, wholeText: true,
	pre: func(s string) bool { return strings.IndexByte(s, '*') >= 0 && strings.IndexByte(s, '&') >= 0 }}

// maxAliases bounds the alias names aliasedAnchorRule looks for: each
// costs a scan of the text.
const maxAliases = 16

// isYAMLAlias reports whether a plain value is only a YAML alias: "*"
// and an anchor name of the characters anchors are written with,
// [A-Za-z0-9_.-] (YAML allows more, but "**hunter2**" is Markdown).
func isYAMLAlias(v string) bool {
	if len(v) < 2 || v[0] != '*' {
		return false
	}
	for i := 1; i < len(v); i++ {
		if !isNameByte(v[i]) {
			return false
		}
	}
	return true
}

// isAliasLine reports whether the value s[from:to] of a name: value line
// (secretLine's match starting at start) is an alias given after a colon,
// unquoted, and ending at a space or the line's end: after "=" (.env,
// INI) or a quote a value starting with "*" is a value, and so is one
// the expression cut at a "#" (*hun#ter2).
func isAliasLine(s string, start, from, to int) bool {
	return isYAMLAlias(s[from:to]) && strings.HasSuffix(strings.TrimRight(s[start:from], " \t"), ":") &&
		(to == len(s) || strings.IndexByte(" \t\r\n", s[to]) >= 0)
}

// findAliasedAnchors returns the spans of the values anchored with the
// names of the aliases given under secret-like names: the scalar after
// "&name " on its line, up to a comment, without its quotes.
func findAliasedAnchors(s string) [][]int {
	var names []string
	g := secretLine.SubexpIndex("secret")
	secretLineFinder.each(s, func(m []int) {
		if len(names) >= maxAliases || m[2*g] < 0 {
			return
		}
		if isAliasLine(s, m[0], m[2*g], m[2*g+1]) {
			names = append(names, s[m[2*g]+1:m[2*g+1]])
		}
	})
	var locs [][]int
	for _, name := range names {
		anchor := "&" + name
		for i := 0; ; {
			j := strings.Index(s[i:], anchor)
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(anchor)
			if at > 0 && strings.IndexByte(" \t:-[{,", s[at-1]) < 0 || i < len(s) && s[i] != ' ' && s[i] != '\t' {
				continue // a longer anchor name, or no anchor
			}
			if from, to := anchoredScalar(s, i); from < to {
				locs = append(locs, []int{from, to})
				i = to // the rest of the line is the value: linear on a line of anchors
			}
		}
	}
	return sortSpans(locs)
}

// anchoredScalar returns the span of the scalar after an anchor's name
// (s[i:] starts after it): the rest of its line up to a comment, inside
// its quotes when quoted; empty when the line has nothing more (the
// anchor is a mapping's or a block's).
func anchoredScalar(s string, i int) (int, int) {
	end := len(s)
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		end = i + j
	}
	line := s[i:end]
	from := i + len(line) - len(strings.TrimLeft(line, " \t"))
	v := strings.TrimRight(s[from:end], " \t\r")
	if v != "" && (v[0] == '"' || v[0] == '\'') {
		if k := closingQuote(v, 1, v[0]); k > 1 && k < len(v) {
			return from + 1, from + k
		}
	}
	if j := strings.Index(v, " #"); j >= 0 {
		v = strings.TrimRight(v[:j], " \t")
	}
	if v == "" || v[0] == '#' || isBlockIndicator(v) {
		return 0, 0
	}
	return from, from + len(v)
}
