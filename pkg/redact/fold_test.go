package redact

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// refMayMatchRule is refMayMatch of a rule's hints, or for a colonWords
// rule whether a word of s holds four colons.
func refMayMatchRule(ru *rule, s string) bool {
	if !ru.colonWords {
		return refMayMatch(ru.hints, s)
	}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r < 0x80 && isWordBreak(byte(r)) }) {
		if strings.Count(w, ":") >= colonWordMin {
			return true
		}
	}
	return false
}

// refMayMatch is the reference the hint scanner is held to: each hint of
// the rule looked for separately, ignoring ASCII case.
func refMayMatch(hints []string, s string) bool {
	if len(hints) == 0 {
		return true
	}
	ls := strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
	for _, h := range hints {
		if strings.Contains(ls, h) {
			return true
		}
	}
	return false
}

// refRedactString is the reference redaction: every rule tests its own
// hints on the text as the previous rule left it.
func refRedactString(rules []rule, s string) (string, bool) {
	changed := false
	for i := range rules {
		if rules[i].wholeText {
			var c bool
			s, c = rules[i].apply(s, refMayMatchRule(&rules[i], s))
			changed = changed || c
		}
	}
	var out strings.Builder
	for start := 0; start < len(s); {
		end := len(s)
		if j := strings.IndexByte(s[start:], '\n'); j >= 0 {
			end = start + j + 1
		}
		line := s[start:end]
		for i := range rules {
			if !rules[i].wholeText {
				var c bool
				line, c = rules[i].apply(line, refMayMatchRule(&rules[i], line))
				changed = changed || c
			}
		}
		out.WriteString(line)
		start = end
	}
	return out.String(), changed
}

// hintText is random text made of pieces of every hint (in random case),
// secret-looking values, separators and newlines.
func hintText(rng *rand.Rand, rules []rule) string {
	var pieces []string
	for _, ru := range rules {
		pieces = append(pieces, ru.hints...)
	}
	pieces = append(pieces, "=", ": ", "\"", "\n", " ", ":", "a:", "h.x:5432:d:u:", "'", "ghp_"+strings.Repeat("a1", 18), "AKIA"+strings.Repeat("B", 16),
		"hunter2hunter2", "[REDACTED:secret]", "://u:p@h", "-----END RSA PRIVATE KEY-----", "é", "\x00", "S")
	var b strings.Builder
	for n := rng.IntN(40); n >= 0; n-- {
		p := pieces[rng.IntN(len(pieces))]
		if rng.IntN(3) == 0 && len(p) > 1 {
			p = p[rng.IntN(len(p)):] // a hint's tail: no match on its own
		}
		if rng.IntN(2) == 0 {
			p = strings.ToUpper(p)
		}
		b.WriteString(p)
	}
	return b.String()
}

// TestHintScannerMatchesEachRulesHints: for random texts full of hints and
// their fragments, in any case, the scanner's mask says a rule may match
// exactly when one of its own hints occurs, and the redaction is the same
// as testing every rule's hints by itself.
func TestHintScannerMatchesEachRulesHints(t *testing.T) {
	custom, err := New([]string{`custom-[0-9]+`})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, r := range []*Redactor{{}, custom} {
		rules, sc := r.ruleSet()
		for n := 0; n < 5000; n++ {
			s := hintText(rng, rules)
			m := scanHints(sc, s, false)
			anyRef := false
			for i := range rules {
				want := refMayMatchRule(&rules[i], s)
				anyRef = anyRef || want
				if got := sc.may(i, m); got != want {
					t.Fatalf("rule %d (%s) on %q: may %v, its hints say %v", i, rules[i].label, s, got, want)
				}
			}
			if got := anyMayMatch(sc, s); got != anyRef {
				t.Fatalf("anyMayMatch(%q) = %v, want %v", s, got, anyRef)
			}
			if got := anyMayMatch(sc, []byte(s)); got != anyRef {
				t.Fatalf("anyMayMatch([]byte %q) = %v, want %v", s, got, anyRef)
			}
			got, gotChanged := redactString(rules, sc, s)
			want, wantChanged := refRedactString(rules, s)
			if got != want || gotChanged != wantChanged {
				t.Fatalf("redactString(%q) = %q, %v; the reference gives %q, %v", s, got, gotChanged, want, wantChanged)
			}
		}
	}
}

// TestHintScannerRulesPastTheMask: a rule past the mask's bits always may
// match (its hints cannot be tracked), so it is never skipped.
func TestHintScannerRulesPastTheMask(t *testing.T) {
	rules := make([]rule, maxHintedRules+1)
	for i := range rules {
		rules[i] = rule{label: "r", hints: []string{"zz"}}
	}
	sc := newHintScanner(rules)
	m := scanHints(sc, "nothing here", false)
	if sc.may(0, m) {
		t.Fatal("rule 0 may match a text without its hint")
	}
	if !sc.may(maxHintedRules, m) {
		t.Fatal("the rule past the mask was skipped")
	}
	if !anyMayMatch(sc, "nothing here") {
		t.Fatal("anyMayMatch skipped a rule past the mask")
	}
}

// TestHintsAreReadAgainAfterAReplacement: a marker written by one rule
// can hold another rule's hint, and that later rule then runs on the
// marker, in whole-text and line rules alike.
func TestHintsAreReadAgainAfterAReplacement(t *testing.T) {
	chain := func(whole bool) []rule {
		first := newRule("zzhint", regexp.MustCompile(`foo`), "foo")
		second := newRule("second", regexp.MustCompile(`zzhint`), "zzhint")
		if whole {
			first, second = wholeText(first), wholeText(second)
		}
		return []rule{first, second}
	}
	for _, whole := range []bool{true, false} {
		rules := chain(whole)
		got, changed := redactString(rules, newHintScanner(rules), "a foo b\nc\n")
		if want := "a [REDACTED:[REDACTED:second]] b\nc\n"; got != want || !changed {
			t.Errorf("whole text %v: got %q, %v; want %q", whole, got, changed, want)
		}
	}
}
