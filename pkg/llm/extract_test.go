package llm_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
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

// TestExtractJSONAfterUnclosedProseBraces: unclosed braces in the prose
// before a long valid answer do not make the extractor give up on it
// (each such brace used to cost a scan to the end of the answer).
func TestExtractJSONAfterUnclosedProseBraces(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := 0; b.Len() < 100<<10; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"n":%d,"text":"line with { and } inside a string"}`, i)
	}
	b.WriteString(`]}`)
	want := b.String()
	for _, opened := range []int{1, 5, 50} {
		in := strings.Repeat("I think { we should ", opened) + "answer:\n" + want + "\n"
		got, err := llm.ExtractJSON(in)
		if err != nil || string(got) != want {
			t.Fatalf("%d unclosed braces: got %d bytes, %v", opened, len(got), err)
		}
	}
}

// TestExtractJSONMatchesReference: on random answers made of brackets,
// quotes, escapes and letters, ExtractJSON finds what a plain
// brace-by-brace search finds (the reference has no work limit; the
// answers are short enough never to reach ExtractJSON's).
func TestExtractJSONMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = `{}[]"\a:1,{}" `
	for n := 0; n < 20000; n++ {
		buf := make([]byte, rng.IntN(40))
		for i := range buf {
			buf[i] = alphabet[rng.IntN(len(alphabet))]
		}
		in := string(buf)
		want, wantErr := referenceExtract(in)
		got, err := llm.ExtractJSON(in)
		if (err != nil) != (wantErr != nil) || string(got) != string(want) {
			t.Fatalf("ExtractJSON(%q) = %q, %v; reference %q, %v", in, got, err, want, wantErr)
		}
	}
}

// referenceExtract is the plain search: from every "{", scan to the
// bracket that brings the depth back to zero; the first candidate closed
// by "}" that is valid JSON wins.
func referenceExtract(s string) ([]byte, error) {
	for start := 0; start < len(s); start++ {
		if s[start] != '{' {
			continue
		}
		depth, inString := 0, false
	scan:
		for i := start; i < len(s); i++ {
			c := s[i]
			if inString {
				switch c {
				case '\\':
					i++
				case '"':
					inString = false
				}
				continue
			}
			switch c {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					if c == '}' && json.Valid([]byte(s[start:i+1])) {
						return bytes.TrimSpace([]byte(s[start : i+1])), nil
					}
					break scan
				}
			}
		}
	}
	return nil, llm.ErrNoJSON
}
