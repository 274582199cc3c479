package rao

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// conformanceDir is the json-patch-tests suite kept in the repository
// (Apache-2.0, see its SOURCE.md and LICENSE).
const conformanceDir = "testdata/json-patch-tests"

// conformanceCase is one record of the json-patch-tests suite.
type conformanceCase struct {
	Comment  string          `json:"comment"`
	Doc      json.RawMessage `json:"doc"`
	Patch    json.RawMessage `json:"patch"`
	Expected json.RawMessage `json:"expected"`
	Error    string          `json:"error"`
	Disabled bool            `json:"disabled"`
}

// loadConformance reads both suite files; they are part of the
// repository, so a missing file fails the test.
func loadConformance(t *testing.T) map[string][]conformanceCase {
	t.Helper()
	out := map[string][]conformanceCase{}
	for _, name := range []string{"tests.json", "spec_tests.json"} {
		raw, err := os.ReadFile(filepath.Join(conformanceDir, name))
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		var cases []conformanceCase
		if err := json.Unmarshal(raw, &cases); err != nil {
			t.Fatalf("decode %s: %v", name, err)
		}
		if len(cases) == 0 {
			t.Fatalf("%s holds no cases", name)
		}
		out[name] = cases
	}
	return out
}

func TestConformanceDiffRoundTrip(t *testing.T) {
	files := loadConformance(t)
	total := 0
	for file, cases := range files {
		for i, c := range cases {
			if c.Error != "" || c.Disabled || c.Expected == nil {
				continue
			}
			total++
			t.Run(file+"/"+c.Comment, func(t *testing.T) {
				p, err := Diff(c.Doc, c.Expected)
				if err != nil {
					t.Fatalf("case %d: Diff: %v", i, err)
				}
				if err := p.Validate(); err != nil {
					t.Fatalf("case %d: Diff produced an invalid delta: %v", i, err)
				}
				got, err := Apply(c.Doc, p)
				if err != nil {
					t.Fatalf("case %d: Apply(Diff): %v (patch %s)", i, err, mustMarshal(t, p))
				}
				assertJSONEqual(t, got, c.Expected)
			})
		}
	}
	if total < 50 {
		t.Fatalf("only %d usable conformance cases, the data looks truncated", total)
	}
}

func TestConformanceApply(t *testing.T) {
	files := loadConformance(t)
	for file, cases := range files {
		for i, c := range cases {
			if c.Error != "" || c.Disabled || c.Expected == nil {
				continue
			}
			t.Run(file+"/"+c.Comment, func(t *testing.T) {
				var p Patch
				if err := json.Unmarshal(c.Patch, &p); err != nil {
					t.Fatalf("case %d: decode patch: %v", i, err)
				}
				got, err := Apply(c.Doc, p)
				if err != nil {
					t.Fatalf("case %d: Apply: %v", i, err)
				}
				assertJSONEqual(t, got, c.Expected)
			})
		}
	}
}

// mustMarshal marshals v for messages or fails the test.
func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return b
}

// TestConformanceErrors: every enabled record with an error must fail, and
// with ErrApply (or already when decoding its patch into a Patch).
func TestConformanceErrors(t *testing.T) {
	files := loadConformance(t)
	for file, cases := range files {
		for i, c := range cases {
			if c.Error == "" || c.Disabled {
				continue
			}
			t.Run(file+"/"+c.Comment+"/"+c.Error, func(t *testing.T) {
				var p Patch
				if err := json.Unmarshal(c.Patch, &p); err != nil {
					return // e.g. "path": null cannot even be represented
				}
				if got, err := Apply(c.Doc, p); !errors.Is(err, ErrApply) {
					t.Fatalf("case %d: Apply = %s, %v; want ErrApply", i, got, err)
				}
			})
		}
	}
}
