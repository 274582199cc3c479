package policy

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// MatchGlob reports whether the workspace-relative, slash-separated path
// name matches pattern.
//
// Syntax: the pattern is a list of segments separated by "/". A segment of
// exactly "**" matches zero or more whole path segments, so "a/**" matches
// "a" itself and everything below it, and "**/x" matches "x" at any depth.
// Inside a segment, "*" matches any run of characters (never "/"), "?"
// matches one character, "[abc]", "[a-z]" and "[!a-z]" (or "[^a-z]") match
// one character of a class, and "\" makes the next character literal.
// Patterns are anchored at the workspace root: "*.lock" matches "go.lock"
// but not "sub/go.lock"; write "**/*.lock" for any depth. Dot files get no
// special treatment. name is cleaned first; "." and "" denote the root,
// which only patterns made of "**" segments match.
//
// It returns false and an error wrapping [ErrInvalidGlob] if pattern is
// malformed (see [ValidateGlob]).
func MatchGlob(pattern, name string) (bool, error) {
	if err := ValidateGlob(pattern); err != nil {
		return false, err
	}
	return matchGlob(pattern, cleanForMatch(name)), nil
}

// ValidateGlob checks pattern against the syntax described at [MatchGlob].
// It returns an error wrapping [ErrInvalidGlob] when the pattern is empty or
// absolute, has an empty, "." or ".." segment, uses "**" other than as a
// whole segment, has an unterminated or inverted character class, or ends
// in a lone "\".
func ValidateGlob(pattern string) error {
	if pattern == "" {
		return fmt.Errorf("%w: empty pattern", ErrInvalidGlob)
	}
	if pattern[0] == '/' {
		return fmt.Errorf("%w: %q is absolute", ErrInvalidGlob, pattern)
	}
	for seg := range strings.SplitSeq(pattern, "/") {
		if err := validateSegment(seg); err != nil {
			return fmt.Errorf("%w: %q: %s", ErrInvalidGlob, pattern, err.Error())
		}
	}
	return nil
}

// segmentProblem is a plain description of what is wrong with a segment.
type segmentProblem string

func (p segmentProblem) Error() string { return string(p) }

func validateSegment(seg string) error {
	switch seg {
	case "":
		return segmentProblem("empty segment")
	case ".", "..":
		return segmentProblem("segment " + seg + " is not allowed")
	case "**":
		return nil
	}
	for i := 0; i < len(seg); i++ {
		switch seg[i] {
		case '\\':
			if i+1 == len(seg) {
				return segmentProblem("trailing backslash")
			}
			i++
		case '*':
			if i+1 < len(seg) && seg[i+1] == '*' {
				return segmentProblem("** must be a whole segment")
			}
		case '[':
			end, err := validateClass(seg, i)
			if err != nil {
				return err
			}
			i = end - 1
		}
	}
	return nil
}

// validateClass checks the class starting at seg[start] == '[' and returns
// the index just past its closing ']'.
func validateClass(seg string, start int) (int, error) {
	i := start + 1
	if i < len(seg) && (seg[i] == '!' || seg[i] == '^') {
		i++
	}
	first := true
	for i < len(seg) {
		if seg[i] == ']' && !first {
			return i + 1, nil
		}
		first = false
		lo, next, ok := classRune(seg, i)
		if !ok {
			return 0, segmentProblem("trailing backslash in class")
		}
		i = next
		if i+1 < len(seg) && seg[i] == '-' && seg[i+1] != ']' {
			hi, after, ok := classRune(seg, i+1)
			if !ok {
				return 0, segmentProblem("trailing backslash in class")
			}
			if hi < lo {
				return 0, segmentProblem("inverted range in class")
			}
			i = after
		}
	}
	return 0, segmentProblem("unterminated character class")
}

// classRune decodes one possibly escaped rune of a class at seg[i].
func classRune(seg string, i int) (r rune, next int, ok bool) {
	if seg[i] == '\\' {
		i++
		if i == len(seg) {
			return 0, 0, false
		}
	}
	r, w := utf8.DecodeRuneInString(seg[i:])
	return r, i + w, true
}

// cleanForMatch turns a cleaned path into the form matchGlob expects: the
// root becomes "".
func cleanForMatch(name string) string {
	if name == "" {
		return ""
	}
	name = path.Clean(name)
	if name == "." {
		return ""
	}
	return name
}

// nextSegment returns the segment of s starting at i and the start of the
// following one; after the last segment that start is len(s)+1.
func nextSegment(s string, i int) (string, int) {
	j := strings.IndexByte(s[i:], '/')
	if j < 0 {
		return s[i:], len(s) + 1
	}
	return s[i : i+j], i + j + 1
}

// segmentsDone reports whether s has no segment left at i. The empty
// string has no segments at all.
func segmentsDone(s string, i int) bool { return len(s) == 0 || i > len(s) }

// matchGlob matches a valid pattern against a cleaned path ("" for the
// root). "**" segments are handled like "*" in classic wildcard matching,
// with whole segments as the units; the most recent "**" is the only
// backtracking point, which is enough because "**" matches any sequence.
func matchGlob(pattern, name string) bool {
	p, n := 0, 0
	starP, starN := -1, -1
	for !segmentsDone(name, n) {
		if !segmentsDone(pattern, p) {
			seg, pNext := nextSegment(pattern, p)
			if seg == "**" {
				starP, starN = pNext, n
				p = pNext
				continue
			}
			nseg, nNext := nextSegment(name, n)
			if matchSegment(seg, nseg) {
				p, n = pNext, nNext
				continue
			}
		}
		if starP < 0 {
			return false
		}
		_, starN = nextSegment(name, starN)
		p, n = starP, starN
	}
	for !segmentsDone(pattern, p) {
		seg, pNext := nextSegment(pattern, p)
		if seg != "**" {
			return false
		}
		p = pNext
	}
	return true
}

// matchSegment matches one pattern segment against one path segment.
func matchSegment(pat, s string) bool {
	pi, si := 0, 0
	starPi, starSi := -1, -1
	for si < len(s) {
		if pi < len(pat) {
			if pat[pi] == '*' {
				starPi, starSi = pi+1, si
				pi++
				continue
			}
			r, w := utf8.DecodeRuneInString(s[si:])
			if ok, pNext := matchOne(pat, pi, r); ok {
				pi, si = pNext, si+w
				continue
			}
		}
		if starPi < 0 {
			return false
		}
		_, w := utf8.DecodeRuneInString(s[starSi:])
		starSi += w
		pi, si = starPi, starSi
	}
	for pi < len(pat) && pat[pi] == '*' {
		pi++
	}
	return pi == len(pat)
}

// matchOne matches the single-character pattern element at pat[pi] (a
// literal, an escape, "?" or a class) against r and returns the index just
// past the element.
func matchOne(pat string, pi int, r rune) (bool, int) {
	switch pat[pi] {
	case '?':
		return true, pi + 1
	case '[':
		return matchClass(pat, pi, r)
	case '\\':
		pi++
	}
	lit, w := utf8.DecodeRuneInString(pat[pi:])
	return lit == r, pi + w
}

// matchClass matches r against the valid class starting at pat[start].
func matchClass(pat string, start int, r rune) (bool, int) {
	i := start + 1
	negate := false
	if pat[i] == '!' || pat[i] == '^' {
		negate = true
		i++
	}
	matched, first := false, true
	for {
		if pat[i] == ']' && !first {
			return matched != negate, i + 1
		}
		first = false
		lo, next, _ := classRune(pat, i)
		hi := lo
		i = next
		if i+1 < len(pat) && pat[i] == '-' && pat[i+1] != ']' {
			hi, i, _ = classRune(pat, i+1)
		}
		if lo <= r && r <= hi {
			matched = true
		}
	}
}
