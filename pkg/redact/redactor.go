package redact

import (
	"bytes"
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
	if !anyMayMatch(sc, b) && !bytes.Contains(b, []byte(`\u`)) {
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
	if !anyMayMatch(sc, s) && !hasUnicodeEscape(s) {
		return s, false
	}
	changed := false
	m := textHints(sc, s)
	var views escViews
	for i := range rules {
		if rules[i].wholeText && i != skip {
			ru, may := &rules[i], sc.may(i, m)
			if ru.findWith != nil && may && (ru.pre == nil || ru.pre(s) || strings.IndexByte(s, '\\') >= 0) {
				// Bound too when pre rejects s but s has escapes: a
				// decoded view of s may pass it.
				ru = ru.withOthers(func(t string) string {
					out, _ := redactSkipping(rules, sc, t, i)
					return out
				})
			}
			var c bool
			s, c = ru.applyViews(s, may, &views)
			if c {
				changed = true
				m = textHints(sc, s)
				views = escViews{}
			}
		}
	}
	// The line rules over lines joined (see joinview.go).
	if v := joinedView(s); v != nil {
		var c bool
		if s, c = applyLabeled(s, joinedLineSpans(rules, sc, v)); c {
			changed = true
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
	m := textHints(sc, line)
	if m == 0 && !sc.always {
		return line, false
	}
	changed := false
	var views escViews
	for i := range rules {
		if !rules[i].wholeText {
			var c bool
			line, c = rules[i].applyViews(line, sc.may(i, m), &views)
			if c {
				changed = true
				m = textHints(sc, line)
				views = escViews{}
			}
		}
	}
	return line, changed
}

// textHints returns the mask of the rules whose hints occur in s or, when
// s holds a \u escape (which may spell a hint: "\u0070assword"), in its
// decoded views (see escape.go).
func textHints(sc *hintScanner, s string) uint64 {
	m := scanHints(sc, s, false)
	if !hasUnicodeEscape(s) {
		return m
	}
	for t, n := s, 0; n < maxEscapeDepth; n++ {
		v := decodeEscapes(t)
		if v == nil {
			break
		}
		t = v.text
		m |= scanHints(sc, t, false)
	}
	return m
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
	return ru.applyViews(s, may, &escViews{})
}

// applyViews is apply given the decoded views of s (see escape.go), made
// at most once for the rules that read s as it is.
func (ru *rule) applyViews(s string, may bool, views *escViews) (string, bool) {
	if !may {
		return s, false
	}
	pre := func(t string) bool { return ru.pre == nil || ru.pre(t) }
	var locs [][]int
	if pre(s) {
		locs = ru.spans(s)
	}
	if chain := views.of(s); chain != nil {
		if esc := escapedSpans(chain, !ru.wholeText, pre, ru.spans); esc != nil {
			locs = sortSpans(append(locs, esc...))
		}
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
