package rao

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzApply feeds arbitrary documents and patches to Apply: it must never
// panic, must fail only with ErrApply, and must return canonical JSON.
func FuzzApply(f *testing.F) {
	seeds := []struct{ doc, patch string }{
		{`{"a":[1,2,3]}`, `[{"op":"remove","path":"/a/1"}]`},
		{`{"a":{"b":1}}`, `[{"op":"add","path":"/a/c","value":[1,{"x":null}]}]`},
		{`[]`, `[{"op":"add","path":"/-","value":"x"}]`},
		{`{"":{"":1}}`, `[{"op":"replace","path":"//","value":2}]`},
		{`{"a":1}`, `[{"op":"move","from":"/a","path":"/b"},{"op":"copy","from":"/b","path":"/c"}]`},
		{`{"a":[1]}`, `[{"op":"test","path":"/a/0","value":1}]`},
		{`{}`, `[{"op":"replace","path":"","value":[]}]`},
		{`{"a":[1,2]}`, `[{"op":"add","path":"/a/-1","value":0}]`},
		{`{"a":[1,2]}`, `[{"op":"remove","path":"/a/01"}]`},
		{`{"~1":{"~0":1}}`, `[{"op":"remove","path":"/~01/~00"}]`},
	}
	for _, s := range seeds {
		f.Add([]byte(s.doc), []byte(s.patch))
	}
	f.Fuzz(func(t *testing.T, doc, rawPatch []byte) {
		var p Patch
		if err := json.Unmarshal(rawPatch, &p); err != nil {
			return
		}
		out, err := Apply(doc, p)
		if err != nil {
			if !errors.Is(err, ErrApply) {
				t.Fatalf("error does not wrap ErrApply: %v", err)
			}
			return
		}
		again, err := CanonicalizeJSON(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("result is not canonical JSON: %q (%v)", out, err)
		}
	})
}

// FuzzDiff checks that Apply(prev, Diff(prev, next)) == next for any pair
// of JSON objects or arrays.
func FuzzDiff(f *testing.F) {
	f.Add([]byte(`{"a":[1,2,3]}`), []byte(`{"a":[1,3],"b":{}}`))
	f.Add([]byte(`{"":{"":1}}`), []byte(`{"":{"":2}}`))
	f.Add([]byte(`[1,[2,3]]`), []byte(`[[2,3],1,4]`))
	f.Add([]byte(`{"9":[],"10":[1]}`), []byte(`{"9":[1],"10":[]}`))
	f.Fuzz(func(t *testing.T, prev, next []byte) {
		if _, err := decodeState(prev); err != nil {
			return
		}
		if _, err := decodeState(next); err != nil {
			return
		}
		p, err := Diff(prev, next)
		if err != nil {
			t.Fatalf("Diff: %v", err)
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("invalid delta: %v", err)
		}
		got, err := Apply(prev, p)
		if err != nil {
			t.Fatalf("Apply(Diff): %v\nprev %s\nnext %s\npatch %s", err, prev, next, mustMarshal(t, p))
		}
		want, _ := CanonicalizeJSON(next)
		if string(got) != string(want) {
			t.Fatalf("Apply(Diff) = %s, want %s", got, want)
		}
	})
}
