package rao

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
)

// parseSeeds are documents, valid or not, whose decoding is easy to get
// wrong: escapes, surrogates (paired, lone, invalid), invalid UTF-8,
// repeated keys, numbers as written, deep nesting, whitespace, trailing
// data.
var parseSeeds = []string{
	`{}`, `[]`, ` { "a" : [ 1 , -0.5e+3 , true , false , null ] } `, `"\u00e9\ud83d\ude42\ud800x\udc00"`,
	"\"bad \xff\xc3 utf8\"", `{"a":1,"a":{"b":2}}`, `{"\u0061":1,"a":2}`, `[[[[[[[[[[]]]]]]]]]]`,
	`12345678901234567890123456789`, `"\"\\\/\b\f\n\r\t"`, "\"\u2028\"", `{"a":1}x`, `[1,]`, `{"a"}`, ``, ` `,
	`nul`, `"unterminated`, `{"a":1}{"b":2}`, "[\"\x01\"]",
}

// checkParse compares decodeValue (parseValid behind json.Valid) with
// encoding/json's Decoder on one document.
func checkParse(t *testing.T, doc []byte) {
	t.Helper()
	got, gerr := decodeValue(doc)
	want, werr := decodeWithDecoder(doc)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%q: error %v, Decoder error %v", doc, gerr, werr)
	}
	if gerr != nil && !errors.Is(gerr, ErrInvalidJSON) {
		t.Fatalf("%q: error does not wrap ErrInvalidJSON: %v", doc, gerr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decoded %#v, Decoder %#v", doc, got, want)
	}
}

// TestParseValidMatchesDecoder: decoding valid JSON without the Decoder
// gives the same values (and invalid JSON the same refusal), for awkward
// documents and random states written non-canonically.
func TestParseValidMatchesDecoder(t *testing.T) {
	for _, s := range parseSeeds {
		checkParse(t, []byte(s))
	}
	for seed := range uint64(200) {
		g := &stateGen{rng: rand.New(rand.NewPCG(seed, 9))}
		rng := rand.New(rand.NewPCG(seed, 10))
		checkParse(t, messyJSON(rng, g.value(5)))
	}
}

// FuzzParseValid compares decodeValue with encoding/json's Decoder on
// arbitrary bytes.
func FuzzParseValid(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) { checkParse(t, doc) })
}
