package redact

import (
	"errors"
	"regexp"
	"slices"
	"strings"
)

// CustomLabel is the marker label of secrets found by extra patterns:
// "[REDACTED:custom]".
const CustomLabel = "custom"

// Redactor replaces secrets with markers. It is immutable after New and
// safe for concurrent use. The zero value and a nil *Redactor use the
// built-in rules only.
type Redactor struct {
	rules []rule
	scan  *hintScanner
}

// defaultScanner is the hint scanner of the built-in rules, made once
// and never changed.
var defaultScanner = newHintScanner(defaultRules)

// New returns a Redactor with the built-in rules followed by the extra
// regular expressions (RE2 syntax). An extra pattern with a group named
// "secret" redacts only that group, e.g. `api-key: (?P<secret>\S+)`;
// otherwise it redacts its whole match, labelled [CustomLabel]. Extra
// patterns run over the whole text (before the built-in line rules), so
// they may span lines; having no literal hints, they also disable the
// no-match fast path.
//
// Every rejected pattern is reported, joined with errors.Join, as a
// *PatternError wrapping [ErrInvalidPattern]: patterns that do not compile
// and patterns that match the empty string (they would mark every
// position).
func New(extra []string) (*Redactor, error) {
	rules := slices.Clone(defaultRules)
	var errs []error
	for i, pattern := range extra {
		re, err := regexp.Compile(pattern)
		if err == nil && re.MatchString("") {
			err = errors.New("matches the empty string")
		}
		if err != nil {
			errs = append(errs, &PatternError{Index: i, Pattern: pattern, Err: err})
			continue
		}
		rules = append(rules, wholeText(newRule(CustomLabel, re)))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Redactor{rules: rules, scan: newHintScanner(rules)}, nil
}

// ruleSet returns the rules to apply and their hint scanner, falling back
// to the built-in ones.
func (r *Redactor) ruleSet() ([]rule, *hintScanner) {
	if r == nil || r.rules == nil {
		return defaultRules, defaultScanner
	}
	return r.rules, r.scan
}

// String returns s with every secret replaced by its marker. When nothing
// can match it returns s itself without allocating.
func (r *Redactor) String(s string) string {
	rules, sc := r.ruleSet()
	out, _ := redactString(rules, sc, s)
	return out
}

// Bytes returns b with every secret replaced by its marker. When nothing
// matches it returns b itself (no copy); otherwise a new slice, leaving b
// unchanged.
func (r *Redactor) Bytes(b []byte) []byte {
	rules, sc := r.ruleSet()
	if !anyMayMatch(sc, b) {
		return b
	}
	out, changed := redactString(rules, sc, string(b))
	if !changed {
		return b
	}
	return []byte(out)
}

// redactString applies the rules in order, each to the previous rule's
// output: first the whole-text rules, then the line rules line by line.
// A rule runs only where one of its hints occurs (sc's mask of the text
// as the previous rule left it). It reports whether anything was
// replaced.
func redactString(rules []rule, sc *hintScanner, s string) (string, bool) {
	return redactSkipping(rules, sc, s, -1)
}

// redactSkipping is redactString without the whole-text rule at index
// skip (-1: none). A rule with findWith finds its spans knowing what the
// other rules redact: it is given them as a function, which runs every
// rule but itself.
func redactSkipping(rules []rule, sc *hintScanner, s string, skip int) (string, bool) {
	if !anyMayMatch(sc, s) {
		return s, false
	}
	changed := false
	m := scanHints(sc, s, false)
	for i := range rules {
		if rules[i].wholeText && i != skip {
			ru, may := &rules[i], sc.may(i, m)
			if ru.findWith != nil && may && (ru.pre == nil || ru.pre(s)) {
				ru = ru.withOthers(func(t string) string {
					out, _ := redactSkipping(rules, sc, t, i)
					return out
				})
			}
			var c bool
			s, c = ru.apply(s, may)
			if c {
				changed = true
				m = scanHints(sc, s, false)
			}
		}
	}
	var out strings.Builder
	started := false
	for start := 0; start < len(s); {
		end := len(s)
		if j := strings.IndexByte(s[start:], '\n'); j >= 0 {
			end = start + j + 1
		}
		line, c := redactLine(rules, sc, s[start:end])
		if c && !started {
			out.Grow(len(s))
			out.WriteString(s[:start])
			started = true
		}
		if started {
			out.WriteString(line)
		}
		start = end
	}
	if started {
		return out.String(), true
	}
	return s, changed
}

// redactLine applies the line rules to one line.
func redactLine(rules []rule, sc *hintScanner, line string) (string, bool) {
	m := scanHints(sc, line, false)
	if m == 0 && !sc.always {
		return line, false
	}
	changed := false
	for i := range rules {
		if !rules[i].wholeText {
			var c bool
			line, c = rules[i].apply(line, sc.may(i, m))
			if c {
				changed = true
				m = scanHints(sc, line, false)
			}
		}
	}
	return line, changed
}

// withOthers returns the rule with find set to its findWith given
// others, the redaction by the other rules.
func (ru *rule) withOthers(others func(string) string) *rule {
	bound := *ru
	bound.find = func(s string) [][]int { return ru.findWith(s, others) }
	return &bound
}

// apply replaces the rule's matches in s; may is false when none of its
// hints occurs in s.
func (ru *rule) apply(s string, may bool) (string, bool) {
	if !may || (ru.pre != nil && !ru.pre(s)) {
		return s, false
	}
	locs := ru.spans(s)
	if ru.escapedQuotes && strings.Contains(s, `\"`) {
		locs = sortSpans(append(locs, ru.escapedSpans(s)...))
	}
	if locs == nil {
		return s, false
	}
	mark := marker(ru.label)
	var out strings.Builder
	last, replaced := 0, false
	for _, loc := range locs {
		start, end := loc[0], loc[1]
		if start < 0 || start == end || strings.HasPrefix(s[start:end], "[REDACTED:") {
			continue // the secret group did not take part, is empty or already redacted
		}
		if !replaced {
			out.Grow(len(s))
			replaced = true
		}
		out.WriteString(s[last:start])
		out.WriteString(mark)
		last = end
	}
	if !replaced {
		return s, false
	}
	out.WriteString(s[last:])
	return out.String(), true
}
