package llm_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/llm"
)

// FuzzExtractJSON: extraction never panics, what it returns is a valid
// JSON object taken verbatim from the answer, and an answer that is itself
// one JSON object (with prose or a fence around it) is always found.
func FuzzExtractJSON(f *testing.F) {
	f.Add("Here:\n```json\n{\"a\": [1,2]}\n```\n", `{"b":"}"}`)
	f.Add("use {braces} wisely", `{"ok":true}`)
	f.Add(strings.Repeat("{", 100), `{}`)
	f.Add(`{"a":"\"}`, `{"x":{"y":[{}]}}`)
	f.Fuzz(func(t *testing.T, prose, object string) {
		for _, answer := range []string{prose, object} {
			got, err := llm.ExtractJSON(answer)
			if err != nil {
				continue
			}
			if !json.Valid(got) || len(got) == 0 || got[0] != '{' || !strings.Contains(answer, string(got)) {
				t.Fatalf("ExtractJSON(%q) = %q", answer, got)
			}
		}
		obj := strings.TrimSpace(object)
		if !json.Valid([]byte(obj)) || !strings.HasPrefix(obj, "{") || strings.Contains(prose, "{") {
			return
		}
		got, err := llm.ExtractJSON(prose + "\n```json\n" + obj + "\n```\n")
		if err != nil || string(got) != obj {
			t.Fatalf("object %q after prose %q: got %q, %v", obj, prose, got, err)
		}
	})
}
