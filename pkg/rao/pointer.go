package rao

import (
	"fmt"
	"strconv"
	"strings"
)

// escapeToken escapes one JSON Pointer reference token (RFC 6901).
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	s = strings.ReplaceAll(s, "~", "~0")
	return strings.ReplaceAll(s, "/", "~1")
}

// joinPointer builds a JSON Pointer from unescaped tokens.
func joinPointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

// parsePointer splits a JSON Pointer into unescaped reference tokens. It
// returns an error wrapping ErrInvalidPatch when p is neither empty nor
// starts with "/", or holds a "~" not followed by "0" or "1".
func parsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("%w: JSON Pointer %q does not start with /", ErrInvalidPatch, p)
	}
	parts := strings.Split(p[1:], "/")
	for i, part := range parts {
		for j := 0; j < len(part); j++ {
			if part[j] == '~' && (j+1 == len(part) || (part[j+1] != '0' && part[j+1] != '1')) {
				return nil, fmt.Errorf("%w: JSON Pointer %q has a bad ~ escape", ErrInvalidPatch, p)
			}
		}
		if strings.Contains(part, "~") {
			parts[i] = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		}
	}
	return parts, nil
}

// isIndex reports whether a token is a canonical array index: "0" or a
// decimal number without leading zeros.
func isIndex(s string) bool {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// compareTokens orders two reference tokens: array indexes before all
// other tokens, indexes numerically ("9" < "10"), other tokens by their
// bytes. This is a total order.
func compareTokens(a, b string) int {
	ai, bi := isIndex(a), isIndex(b)
	switch {
	case ai && bi:
		if len(a) != len(b) {
			if len(a) < len(b) {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	case ai:
		return -1
	case bi:
		return 1
	default:
		return strings.Compare(a, b)
	}
}

// comparePaths orders token lists segment-wise; a path sorts before every
// path below it.
func comparePaths(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareTokens(a[i], b[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	default:
		return 0
	}
}

// isLooseIndex reports whether tok looks like a number but is not a
// canonical array index ("01", "+1", "-0", "-3").
func isLooseIndex(tok string) bool {
	digits := strings.TrimLeft(tok, "+-")
	if digits == "" || len(tok)-len(digits) > 1 || isIndex(tok) {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

// hasLooseIndex reports whether a path or from of p holds a loose index
// token.
func hasLooseIndex(p Patch) bool {
	for _, op := range p {
		for _, ptr := range []string{op.Path, op.From} {
			toks, err := parsePointer(ptr)
			if err != nil {
				continue
			}
			for _, t := range toks {
				if isLooseIndex(t) {
					return true
				}
			}
		}
	}
	return false
}

// looseIndexIn walks ptr through the decoded document v and returns the
// first loose index token that addresses an array. It stops quietly where
// the path leaves the document (the library reports that).
func looseIndexIn(v any, ptr string) (string, bool) {
	toks, err := parsePointer(ptr)
	if err != nil {
		return "", false
	}
	cur := v
	for _, t := range toks {
		switch c := cur.(type) {
		case []any:
			if isLooseIndex(t) {
				return t, true
			}
			if !isIndex(t) {
				return "", false
			}
			i, err := strconv.Atoi(t)
			if err != nil || i >= len(c) {
				return "", false
			}
			cur = c[i]
		case map[string]any:
			next, ok := c[t]
			if !ok {
				return "", false
			}
			cur = next
		default:
			return "", false
		}
	}
	return "", false
}
