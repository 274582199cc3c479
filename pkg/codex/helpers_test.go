package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// referencePayload returns the clarifications' reference payload (v1.2).
func referencePayload(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "reference-v1.2.codex"))
	if err != nil {
		t.Fatalf("read reference payload: %v", err)
	}
	return string(b)
}

// edit replaces the first occurrence of old in s, failing when it is absent.
func edit(t testing.TB, s, old, repl string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("edit: %q not found", old)
	}
	return strings.Replace(s, old, repl, 1)
}

// diagStrings renders diagnostics with String.
func diagStrings(diags []Diagnostic) []string {
	out := make([]string, len(diags))
	for i, d := range diags {
		out[i] = d.String()
	}
	return out
}

// hasDiag reports whether diags contains one whose String is want.
func hasDiag(diags []Diagnostic, want string) bool {
	for _, d := range diags {
		if d.String() == want {
			return true
		}
	}
	return false
}

// mustDecode decodes payload and fails on an error or an ERROR diagnostic.
func mustDecode(t testing.TB, payload string) (*CognitiveState, []Diagnostic) {
	t.Helper()
	st, diags, err := Decode(payload)
	if err != nil {
		t.Fatalf("Decode: %v (diagnostics %v)", err, diagStrings(diags))
	}
	if HasErrors(diags) || st == nil {
		t.Fatalf("Decode: state %v, diagnostics %v", st != nil, diagStrings(diags))
	}
	return st, diags
}

func ptr[T any](v T) *T { return &v }
