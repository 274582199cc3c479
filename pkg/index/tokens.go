package index

import (
	"strings"
	"unicode"
)

// stopwords are ignored when extracting terms.
var stopwords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "that": true, "this": true, "make": true, "when": true,
	"from": true, "into": true, "should": true, "return": true, "returns": true, "add": true, "fix": true,
	"use": true, "are": true, "not": true, "but": true, "all": true, "can": true, "its": true, "has": true,
	"have": true, "was": true, "will": true, "them": true, "then": true, "than": true, "there": true, "what": true,
	"is": true, "it": true, "to": true, "of": true, "in": true, "on": true, "an": true, "be": true, "or": true,
	"so": true, "if": true, "as": true, "by": true, "at": true, "we": true, "do": true, "does": true,
}

// Terms extracts up to max distinct search terms from text: identifier-like
// words of three or more characters, lower-cased, stopwords removed, in
// order of first appearance.
func Terms(text string, max int) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range words(text) {
		lw := strings.ToLower(w)
		if len(lw) < 3 || stopwords[lw] || seen[lw] {
			continue
		}
		seen[lw] = true
		out = append(out, lw)
		if len(out) == max {
			break
		}
	}
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

func words(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) })
}

// tokenize returns the index tokens of a text: each identifier
// lower-cased, plus its camelCase and snake_case parts (so "parseHTTPConfig"
// gives parsehttpconfig, parse, http, config). Tokens shorter than two
// characters are dropped.
func tokenize(text string, emit func(string)) {
	start := -1
	for i, r := range text {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			identTokens(text[start:i], emit)
			start = -1
		}
	}
	if start >= 0 {
		identTokens(text[start:], emit)
	}
}

func identTokens(id string, emit func(string)) {
	if len(id) < 2 {
		return
	}
	lower := strings.ToLower(id)
	emit(lower)
	parts := splitIdent(id)
	if len(parts) > 1 {
		for _, p := range parts {
			if len(p) >= 2 {
				emit(p)
			}
		}
	}
}

// splitIdent splits an identifier at underscores and case changes,
// lower-casing the parts.
func splitIdent(id string) []string {
	var parts []string
	rs := []rune(id)
	start := 0
	flush := func(end int) {
		if end > start {
			parts = append(parts, strings.ToLower(string(rs[start:end])))
		}
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r == '_' {
			flush(i)
			start = i + 1
			continue
		}
		if i > start && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush(i)
				start = i
			}
		}
	}
	flush(len(rs))
	return parts
}

// queryTokens are the tokens of a query, stopwords removed, deduplicated.
func queryTokens(q string) []string {
	seen := map[string]bool{}
	var out []string
	tokenize(q, func(t string) {
		if !stopwords[t] && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	})
	return out
}
