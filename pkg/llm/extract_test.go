package llm_test

import (
	"errors"
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
