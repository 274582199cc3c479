package policy

import (
	"errors"
	"testing"
)

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		path    string
		want    bool
	}{
		{name: "literal", pattern: "go.mod", path: "go.mod", want: true},
		{name: "literal mismatch", pattern: "go.mod", path: "go.sum", want: false},
		{name: "literal is anchored", pattern: "go.mod", path: "sub/go.mod", want: false},
		{name: "star within segment", pattern: "*.go", path: "main.go", want: true},
		{name: "star does not cross slash", pattern: "*.go", path: "cmd/main.go", want: false},
		{name: "star matches empty", pattern: "main*.go", path: "main.go", want: true},
		{name: "trailing star matches empty", pattern: "main*", path: "main", want: true},
		{name: "trailing star after full match", pattern: "a*", path: "b", want: false},
		{name: "star matches dot files", pattern: "*", path: ".env", want: true},
		{name: "star alone needs a segment", pattern: "*", path: "a/b", want: false},
		{name: "two stars in segment", pattern: "*_test*.go", path: "x_test_y.go", want: true},
		{name: "star backtracks", pattern: "a*b*c", path: "aXbYbZc", want: true},
		{name: "star backtrack fails", pattern: "a*b*c", path: "aXbYbZ", want: false},
		{name: "question mark", pattern: "?.go", path: "a.go", want: true},
		{name: "question mark needs a char", pattern: "?.go", path: ".go", want: false},
		{name: "question mark multibyte", pattern: "?.go", path: "é.go", want: true},
		{name: "class", pattern: "[abc].txt", path: "b.txt", want: true},
		{name: "class miss", pattern: "[abc].txt", path: "d.txt", want: false},
		{name: "range", pattern: "v[0-9]", path: "v7", want: true},
		{name: "range miss", pattern: "v[0-9]", path: "vx", want: false},
		{name: "negated class bang", pattern: "[!a]", path: "b", want: true},
		{name: "negated class caret", pattern: "[^a]", path: "a", want: false},
		{name: "close bracket first is literal", pattern: "[]x]", path: "]", want: true},
		{name: "escaped bracket in class", pattern: `[\]]`, path: "]", want: true},
		{name: "dash at end of class is literal", pattern: "[a-]", path: "-", want: true},
		{name: "multibyte range", pattern: "[α-ω]", path: "β", want: true},
		{name: "escaped star is literal", pattern: `\*.go`, path: "*.go", want: true},
		{name: "escaped star does not wildcard", pattern: `\*.go`, path: "a.go", want: false},
		{name: "escaped question mark", pattern: `a\?`, path: "a?", want: true},
		{name: "escaped question mark literal only", pattern: `a\?`, path: "ab", want: false},
		{name: "escaped ordinary char", pattern: `\a`, path: "a", want: true},
		{name: "escaped double star is literal", pattern: `\*\*`, path: "**", want: true},
		{name: "escaped double star not recursive", pattern: `\*\*/x`, path: "a/b/x", want: false},
		{name: "double star alone matches everything", pattern: "**", path: "a/b/c.go", want: true},
		{name: "double star matches root", pattern: "**", path: ".", want: true},
		{name: "double star matches empty path as root", pattern: "**", path: "", want: true},
		{name: "literal does not match root", pattern: "a", path: ".", want: false},
		{name: "trailing double star matches dir itself", pattern: ".git/**", path: ".git", want: true},
		{name: "trailing double star matches below", pattern: ".git/**", path: ".git/objects/ab/cd", want: true},
		{name: "trailing double star is not a prefix match", pattern: ".git/**", path: ".gitignore", want: false},
		{name: "leading double star zero segments", pattern: "**/go.mod", path: "go.mod", want: true},
		{name: "leading double star many segments", pattern: "**/go.mod", path: "a/b/c/go.mod", want: true},
		{name: "leading double star wrong name", pattern: "**/go.mod", path: "a/go.sum", want: false},
		{name: "middle double star zero", pattern: "a/**/b", path: "a/b", want: true},
		{name: "middle double star many", pattern: "a/**/b", path: "a/x/y/b", want: true},
		{name: "middle double star needs suffix", pattern: "a/**/b", path: "a/x/y/c", want: false},
		{name: "middle double star needs prefix", pattern: "a/**/b", path: "c/x/b", want: false},
		{name: "two double stars", pattern: "**/secrets/**/*.pem", path: "x/secrets/y/z/k.pem", want: true},
		{name: "two double stars miss", pattern: "**/secrets/**/*.pem", path: "x/secret/y/k.pem", want: false},
		{name: "double star then star", pattern: "**/*_test.go", path: "pkg/a/b_test.go", want: true},
		{name: "consecutive double stars", pattern: "**/**/x", path: "x", want: true},
		{name: "backtracking across segments", pattern: "**/a/b", path: "a/a/a/b", want: true},
		{name: "pattern longer than path", pattern: "a/b/c", path: "a/b", want: false},
		{name: "path longer than pattern", pattern: "a/b", path: "a/b/c", want: false},
		{name: "path is cleaned", pattern: ".git/**", path: "./x/../.git/config", want: true},
		{name: "case sensitive", pattern: "README.md", path: "readme.md", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MatchGlob(tt.pattern, tt.path)
			if err != nil {
				t.Fatalf("MatchGlob(%q, %q) error: %v", tt.pattern, tt.path, err)
			}
			if got != tt.want {
				t.Errorf("MatchGlob(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
			}
		})
	}
}

func TestValidateGlobRejects(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
	}{
		{name: "empty", pattern: ""},
		{name: "absolute", pattern: "/etc/passwd"},
		{name: "empty segment", pattern: "a//b"},
		{name: "trailing slash", pattern: "vendor/"},
		{name: "dot segment", pattern: "./a"},
		{name: "dotdot segment", pattern: "a/../b"},
		{name: "double star inside segment", pattern: "a**"},
		{name: "double star prefix of segment", pattern: "**.go"},
		{name: "triple star", pattern: "***"},
		{name: "unterminated class", pattern: "[abc"},
		{name: "class cut by slash", pattern: "[a/b]"},
		{name: "inverted range", pattern: "[z-a]"},
		{name: "trailing backslash", pattern: `a\`},
		{name: "backslash before slash", pattern: `a\/b`},
		{name: "trailing backslash in class", pattern: `[a\`},
		{name: "trailing backslash in range", pattern: `[a-\`},
		{name: "empty negated class", pattern: "[!]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateGlob(tt.pattern)
			if !errors.Is(err, ErrInvalidGlob) {
				t.Fatalf("ValidateGlob(%q) = %v, want ErrInvalidGlob", tt.pattern, err)
			}
			ok, err := MatchGlob(tt.pattern, "a")
			if ok || !errors.Is(err, ErrInvalidGlob) {
				t.Errorf("MatchGlob(%q) = %v, %v; want false, ErrInvalidGlob", tt.pattern, ok, err)
			}
		})
	}
}

func TestValidateGlobAccepts(t *testing.T) {
	for _, pattern := range []string{"a", "**", "a/**/b", `\*\*`, "[]]", "[!]]", "[a-z0-9_]*", "x?y", `[\\]`, ".env", "..foo"} {
		t.Run(pattern, func(t *testing.T) {
			if err := ValidateGlob(pattern); err != nil {
				t.Errorf("ValidateGlob(%q) = %v, want nil", pattern, err)
			}
		})
	}
}
