package policy

import (
	"path"
	"strings"
	"unicode"
)

// pathProblem classifies a tool-call path that cannot be evaluated.
type pathProblem int

const (
	pathOK pathProblem = iota
	pathEscapes
	pathInvalid
)

// cleanPath cleans a workspace-relative, slash-separated path. Absolute
// paths and paths whose cleaned form leaves the workspace report
// pathEscapes; empty paths and paths containing NUL report pathInvalid.
func cleanPath(p string) (string, pathProblem) {
	if p == "" || strings.IndexByte(p, 0) >= 0 {
		return "", pathInvalid
	}
	if p[0] == '/' {
		return "", pathEscapes
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", pathEscapes
	}
	return c, pathOK
}

// foldPath returns the spelling-insensitive form of a cleaned path that
// never_touch globs and the .git rule are also matched against: invisible
// and default-ignorable code points removed, trailing dots and spaces of
// each segment dropped (Windows ignores them), and lower case (as on
// case-insensitive filesystems). It is only ever used to decide more
// blocks, never to name a file.
func foldPath(c string) string {
	if isPlainLower(c) {
		return c
	}
	var b strings.Builder
	b.Grow(len(c))
	for _, r := range c {
		if isIgnorable(r) {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	segs := strings.Split(b.String(), "/")
	for i, s := range segs {
		if t := strings.TrimRight(s, ". "); t != "" {
			segs[i] = t
		}
	}
	return strings.Join(segs, "/")
}

// isPlainLower reports whether s is printable lower-case ASCII with no
// segment ending in a dot or space, so that foldPath(s) == s.
func isPlainLower(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c < 0x20 || ('A' <= c && c <= 'Z') {
			return false
		}
		if (c == '.' || c == ' ') && (i+1 == len(s) || s[i+1] == '/') {
			return false
		}
	}
	return true
}

// isIgnorable reports whether r is invisible in a file name: format
// characters (zero-width spaces and joiners, bidi controls, the BOM, soft
// hyphen), variation selectors, tags, Hangul fillers and other
// default-ignorable code points.
func isIgnorable(r rune) bool {
	switch {
	case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Variation_Selector, r):
		return true
	case r == 0x034F, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5, r == 0x3164, r == 0xFFA0,
		r >= 0x180B && r <= 0x180F, r >= 0x2060 && r <= 0x206F, r >= 0xE0000 && r <= 0xE0FFF:
		return true
	}
	return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// inGitDir reports whether a cleaned path is, or lies inside, a directory
// named .git in any spelling foldPath erases.
func inGitDir(c string) bool {
	for seg := range strings.SplitSeq(foldPath(c), "/") {
		if seg == ".git" {
			return true
		}
	}
	return false
}

// matchesFolded reports whether glob matches the cleaned path c as
// written or in its folded form (with the glob folded to lower case).
func matchesFolded(glob, c string) bool {
	if matchGlob(glob, c) {
		return true
	}
	f := foldPath(c)
	lg := strings.ToLower(glob)
	if f == c && lg == glob {
		return false
	}
	return matchGlob(lg, f)
}
