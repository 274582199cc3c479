package workspace

import (
	"strings"
	"unicode"
)

// IsGitName reports whether a single path element names git's metadata
// directory on some filesystem: ".git" in any case, with invisible
// (format or default-ignorable) characters anywhere, with trailing dots or
// spaces, with an NTFS stream suffix (".git::$INDEX_ALLOCATION"), or as
// the 8.3 short name "git~1". Case-insensitive filesystems (macOS, Windows)
// and HFS+'s ignored code points make all of these the same directory.
func IsGitName(name string) bool {
	var b strings.Builder
	for _, r := range name {
		if unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) {
			continue
		}
		b.WriteRune(r)
	}
	s := b.String()
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, ". ")
	return strings.EqualFold(s, ".git") || strings.EqualFold(s, "git~1")
}
