package redact

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// nameText is random text made of secret-like and ordinary names (some
// very long), separators, the name rules' operators, quotes, spaces,
// line breaks and values.
func nameText(rng *rand.Rand) string {
	pieces := []string{
		"password", "PASSWORD", "db_pass", "dbPass", "api-key", "apiKey", "secret", "token", "tokens", "max_tokens",
		"secret_key_base", "client.secret", "bypass", "pass", "auth", "Cookie", "bearer", "proxy-authorization", "export ", "- ", "--", "-", "_", ".", "__",
		"=", ":", ": ", " = ", ":=", "=>", "!=", "=~", "!~", "~", "!", `"`, `'`, `\"`, " ", "\t", "\n", "\r\n", "#", " # c", "|", ">-", "!vault |",
		"hunter2", "x", "12", "-7.5e3", "{", "}", ",", "&", ";", "é", "\\",
	}
	var b strings.Builder
	for n := rng.IntN(30); n >= 0; n-- {
		p := pieces[rng.IntN(len(pieces))]
		if rng.IntN(25) == 0 { // a long run
			p = strings.Repeat([]string{"password_", "a", "x_", "_", "Pass"}[rng.IntN(5)], 10+rng.IntN(60)) + p
		}
		b.WriteString(p)
	}
	return b.String()
}

// TestNameFindersMatchTheirExpressions: on random texts full of names,
// operators and long name runs, every name rule's finder gives exactly
// the matches of its expression (FindAllStringSubmatchIndex): the same
// secret spans, and for the line rules the same match bounds and
// indentation group.
func TestNameFindersMatchTheirExpressions(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	type finder struct {
		name   string
		re     *regexp.Regexp
		f      *nameFinder
		groups []int // the groups compared besides the match bounds
	}
	finders := []finder{
		{"secret line", secretLine, secretLineFinder, []int{secretLine.SubexpIndex("secret")}},
		{"yaml block", yamlSecretBlock, yamlSecretBlockFinder, []int{1}},
		{"yaml empty", yamlSecretEmpty, yamlSecretEmptyFinder, []int{1}},
	}
	named := 0
	for i := range defaultRules {
		ru := &defaultRules[i]
		if ru.find == nil || ru.re == nil {
			continue
		}
		named++
		for n := 0; n < 3000; n++ {
			// Line rules see one line at a time, its line break included.
			s := nameText(rng)
			if i := strings.IndexByte(s, '\n'); i >= 0 && !ru.wholeText {
				s = s[:i+1]
			}
			var want [][]int
			for _, m := range ru.re.FindAllStringSubmatchIndex(s, -1) {
				if m[2*ru.group] >= 0 {
					want = append(want, []int{m[2*ru.group], m[2*ru.group+1]})
				}
			}
			if got := ru.find(s); !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("rule %d %s on %q:\n got %v\nwant %v", i, ru.re, s, got, want)
			}
		}
	}
	if named < 6 {
		t.Fatalf("%d name rules with a finder, want at least 6", named)
	}
	for _, fd := range finders {
		for n := 0; n < 3000; n++ {
			s := nameText(rng)
			var want, got [][]int
			pick := func(m []int) []int {
				out := []int{m[0], m[1]}
				for _, g := range fd.groups {
					out = append(out, m[2*g], m[2*g+1])
				}
				return out
			}
			for _, m := range fd.re.FindAllStringSubmatchIndex(s, -1) {
				want = append(want, pick(m))
			}
			fd.f.each(s, func(m []int) { got = append(got, pick(m)) })
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("%s on %q:\n got %v\nwant %v", fd.name, s, got, want)
			}
		}
	}
}
