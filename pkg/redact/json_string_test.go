package redact

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAppendJSONStringMatchesEncoder: random strings of every ASCII byte,
// UTF-8 of every length, U+2028/U+2029 and invalid UTF-8 encode as
// json.Encoder without HTML escaping encodes them, as a string and as
// bytes.
func TestAppendJSONStringMatchesEncoder(t *testing.T) {
	pieces := []string{"é", "€", "😀", "\u2028", "\u2029", "\ufffd", "\xff", "\xc3", "\xed\xa0\x80", "\xc0\x80",
		"\xf0\x9f\x98", "\xe2\x80", "<>&", "[REDACTED:secret]"}
	for c := range 0x80 {
		pieces = append(pieces, string(rune(c)))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	for range 5000 {
		var b strings.Builder
		for n := rng.IntN(8); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		want.Reset()
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		w := bytes.TrimSuffix(want.Bytes(), []byte("\n"))
		if got := appendJSONString([]byte("x"), s); !bytes.Equal(got[1:], w) || got[0] != 'x' {
			t.Fatalf("appendJSONString(%q) = %q, want %q", s, got[1:], w)
		}
		if got := appendJSONString(nil, []byte(s)); !bytes.Equal(got, w) {
			t.Fatalf("appendJSONString([]byte(%q)) = %q, want %q", s, got, w)
		}
	}
}

// TestDecodeJSONStringMatchesDecoder: random valid string literals of
// awkward pieces decode as encoding/json decodes them, and the returned
// index is just past the closing quote.
func TestDecodeJSONStringMatchesDecoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 5000 {
		var b strings.Builder
		b.WriteByte('"')
		for n := rng.IntN(6); n > 0; n-- {
			b.WriteString(awkwardStrings[rng.IntN(len(awkwardStrings))])
		}
		b.WriteString(`",1`)
		raw := []byte(b.String())
		lit := raw[:len(raw)-2]
		var want string
		if err := json.Unmarshal(lit, &want); err != nil {
			t.Fatalf("%q: %v", lit, err)
		}
		got, end := decodeJSONString([]byte("x"), raw, 1)
		if string(got[1:]) != want || got[0] != 'x' || end != len(lit) {
			t.Fatalf("decodeJSONString(%q) = %q, %d; want %q, %d", lit, got[1:], end, want, len(lit))
		}
	}
}
