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
}

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
	return &Redactor{rules: rules}, nil
}

// ruleSet returns the rules to apply, falling back to the built-in ones.
func (r *Redactor) ruleSet() []rule {
	if r == nil || r.rules == nil {
		return defaultRules
	}
	return r.rules
}

// String returns s with every secret replaced by its marker. When nothing
// can match it returns s itself without allocating.
func (r *Redactor) String(s string) string {
	out, _ := redactString(r.ruleSet(), s)
	return out
}

// Bytes returns b with every secret replaced by its marker. When nothing
// matches it returns b itself (no copy); otherwise a new slice, leaving b
// unchanged.
func (r *Redactor) Bytes(b []byte) []byte {
	rules := r.ruleSet()
	if !anyMayMatch(rules, b, bytes.IndexByte) {
		return b
	}
	out, changed := redactString(rules, string(b))
	if !changed {
		return b
	}
	return []byte(out)
}

// redactString applies the rules in order, each to the previous rule's
// output: first the whole-text rules, then the line rules line by line.
// It reports whether anything was replaced.
func redactString(rules []rule, s string) (string, bool) {
	if !anyMayMatch(rules, s, strings.IndexByte) {
		return s, false
	}
	changed := false
	for i := range rules {
		if rules[i].wholeText {
			var c bool
			s, c = rules[i].apply(s)
			changed = changed || c
		}
	}
	var out strings.Builder
	started := false
	for start := 0; start < len(s); {
		end := len(s)
		if j := strings.IndexByte(s[start:], '\n'); j >= 0 {
			end = start + j + 1
		}
		line, c := redactLine(rules, s[start:end])
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
func redactLine(rules []rule, line string) (string, bool) {
	changed := false
	for i := range rules {
		if !rules[i].wholeText {
			var c bool
			line, c = rules[i].apply(line)
			changed = changed || c
		}
	}
	return line, changed
}

// apply replaces the rule's matches in s if its hints allow a match.
func (ru *rule) apply(s string) (string, bool) {
	if !mayMatch(ru.hints, s, strings.IndexByte) || (ru.pre != nil && !ru.pre(s)) {
		return s, false
	}
	locs := ru.re.FindAllStringSubmatchIndex(s, -1)
	if locs == nil {
		return s, false
	}
	mark := marker(ru.label)
	var out strings.Builder
	last, replaced := 0, false
	for _, loc := range locs {
		start, end := loc[2*ru.group], loc[2*ru.group+1]
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
