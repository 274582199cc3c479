package codex

import (
	"strings"
	"testing"
)

func TestIsHashID(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"4 hex", "proj#7fa2", true},
		{"16 hex", "mod#0123456789abcdef", true},
		{"long namespace", "fingerprint#aa71", true},
		{"3 hex", "proj#7fa", false},
		{"2-letter namespace", "pr#7fa2", false},
		{"upper hex", "proj#7FA2", false},
		{"upper namespace", "Proj#7fa2", false},
		{"digit in namespace", "pr0j#7fa2", false},
		{"non-hex", "proj#7fg2", false},
		{"two hashes", "proj#7fa2#beef", false},
		{"no hash", "proj7fa2", false},
		{"empty", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsHashID(tc.in); got != tc.want {
				t.Errorf("IsHashID(%q) = %v", tc.in, got)
			}
		})
	}
}

func TestHashID(t *testing.T) {
	tests := []struct {
		name, ns, in, want string
	}{
		// Expected digests computed with sha256sum.
		{"path", "mod", "src/api.ts", "mod#769911c416ccf851"},
		{"empty input", "sess", "", "sess#e3b0c44298fc1c14"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := HashID(tc.ns, tc.in)
			if got != tc.want || !IsHashID(got) || strings.Contains(got, tc.in) && tc.in != "" {
				t.Errorf("HashID = %q, want %q", got, tc.want)
			}
		})
	}
	if HashID("ab", "x") == HashID("ab", "y") || IsHashID(HashID("ab", "x")) {
		t.Errorf("a two-letter namespace must not give a valid identifier")
	}
}

func TestPathLike(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"relative file", "src/api.ts", true},
		{"bare source file", "main.go", true},
		{"bare config file", "package.json", true},
		{"absolute", "/etc", true},
		{"dot relative", "./x", true},
		{"parent", "../x", true},
		{"home", "~/notes", true},
		{"two slashes", "a/b/c", true},
		{"dotfile", ".env", true},
		{"devDNA", "focus/iterative", false},
		{"tasks form", "3.active/7.total", false},
		{"dotted unknown ext", "focus/deep.work", false},
		{"number", "0.82", false},
		{"key-like", "cog.health", false},
		{"digits base", "7.go", false},
		{"leading dot number", ".5", false},
		{"empty", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := pathLike(tc.in); got != tc.want {
				t.Errorf("pathLike(%q) = %v", tc.in, got)
			}
		})
	}
}

func TestCheckToken(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Code // "" for a clean token
	}{
		{"reference stack", "stack=hash(fe,api,llm)", ""},
		{"reference devDNA", "devDNA=focus/iterative", ""},
		{"signed correlation", "correlation:tests-vs-focus(+0.41)", ""},
		{"kpi percent", "kpi:coverage=80%", ""},
		{"encoder at version", "encoder=codali@1.2.0", ""},
		{"hex sha256 item", "checksum=sum#" + strings.Repeat("ab12", 16), ""},
		{"lowercase 30 chars", "label=" + strings.Repeat("abcde", 6), ""},
		{"mixed case short", "devDNA=Focus2", ""},
		{"identifier key needs hashes", "hotspots=mod#a913,raw", CodeHashViolation},
		{"adr key", "adr=ADR-12", CodeHashViolation},
		{"project key", "project=codali", CodeHashViolation},
		{"hash inside label", "pattern:x#1(conf=0.1)", CodeHashViolation},
		{"quote", `phase="build"`, CodeRawContent},
		{"brace", "x={}", CodeRawContent},
		{"backslash path", `hotspots=src\api.ts`, CodeRawContent},
		{"semicolon", "a=b;", CodeRawContent},
		{"base64 with padding chars", "blob=U29tZSBsb25nIHNlY3JldCB0ZXh0IGhlcmU", CodeRawContent},
		{"yaml key", "name:", CodeRawContent},
		{"dashes", "---", CodeRawContent},
		{"long word", "x=" + strings.Repeat("a", 97), CodeRawContent},
		{"word of 96", "x=" + strings.Repeat("a", 96), ""},
		{"key with source extension", "ext.c=1", ""},
		{"kpi name with extension", "kpi:readme.md=ok", ""},
		{"path as key", "src/api.ts=hot", CodeHashViolation},
		{"file as value", "note=readme.md", CodeHashViolation},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, found := checkToken(parseToken(tc.in, false))
			if (tc.want == "") == found || (found && d.Code != tc.want) {
				t.Errorf("checkToken(%q) = %v %v, want %q", tc.in, d, found, tc.want)
			}
		})
	}
}
