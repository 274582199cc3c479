package llm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/llm"
)

func TestExtractJSON(t *testing.T) {
	cases := []struct {
		name, in, want string
		err            bool
	}{
		{"plain", `{"a":1}`, `{"a":1}`, false},
		{"fenced", "Here:\n```json\n{\"a\": [1,2]}\n```\n", `{"a": [1,2]}`, false},
		{"prose brace first", "use {braces} wisely {\"ok\":true}", `{"ok":true}`, false},
		{"none", "no json here", "", true},
		{"unterminated", `{"a":`, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := llm.ExtractJSON(tc.in)
			if tc.err {
				if !errors.Is(err, llm.ErrNoJSON) {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %s, %v", got, err)
			}
		})
	}
}

// TestExtractJSONHostileIsLinear: answers built to make a naive extractor
// quadratic (a decoder started at every brace) are handled in a bounded
// number of passes. The bound is checked by counting work, not time.
func TestExtractJSONHostile(t *testing.T) {
	const n = 1 << 20
	cases := map[string]string{
		"open braces":           strings.Repeat("{", n),
		"open objects":          strings.Repeat(`{"a":`, n/5),
		"unterminated strings":  strings.Repeat(`{"`, n/2),
		"arrays inside objects": strings.Repeat(`{"a":[`, n/6),
		"almost valid":          strings.Repeat(`{"a":1,`, n/7),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := llm.ExtractJSON(in); !errors.Is(err, llm.ErrNoJSON) {
				t.Fatalf("err = %v", err)
			}
			allocs := testing.AllocsPerRun(1, func() { _, _ = llm.ExtractJSON(in) })
			if allocs > 1000 {
				t.Errorf("%v allocations: not bounded", allocs)
			}
		})
	}
	// A valid object after a hostile prefix of balanced junk is still found.
	in := strings.Repeat("{x}", 1000) + ` and then {"ok":true}`
	if got, err := llm.ExtractJSON(in); err != nil || string(got) != `{"ok":true}` {
		t.Fatalf("got %s, %v", got, err)
	}
	// Nested candidates: the outer one is invalid, the inner one is found.
	if got, err := llm.ExtractJSON(`{ note: {"a":{"b":1}} }`); err != nil || string(got) != `{"a":{"b":1}}` {
		t.Fatalf("got %s, %v", got, err)
	}
}
