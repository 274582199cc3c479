package rao

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestApply(t *testing.T) {
	tests := []struct {
		name  string
		doc   string
		patch string
		want  string
	}{
		{name: "empty patch canonicalizes", doc: ` {"b":1, "a":2} `, patch: `[]`, want: `{"a":2,"b":1}`},
		{name: "result is canonical", doc: `{"b":1}`, patch: `[{"op":"add","path":"/a","value":{"z":1,"y":2}}]`, want: `{"a":{"y":2,"z":1},"b":1}`},
		{name: "numbers kept", doc: `{"n":1}`, patch: `[{"op":"replace","path":"/n","value":1.50}]`, want: `{"n":1.50}`},
		{name: "no HTML escaping", doc: `{}`, patch: `[{"op":"add","path":"/h","value":"<&>"}]`, want: `{"h":"<&>"}`},
		{name: "append with dash", doc: `{"a":[1]}`, patch: `[{"op":"add","path":"/a/-","value":2}]`, want: `{"a":[1,2]}`},
		{name: "root array", doc: `[1,2]`, patch: `[{"op":"remove","path":"/0"}]`, want: `[2]`},
		{name: "replace root", doc: `{"a":1}`, patch: `[{"op":"replace","path":"","value":{"b":2}}]`, want: `{"b":2}`},
		{name: "nested empty member", doc: `{"":{"":{"x":1}},"x":0}`, patch: `[{"op":"replace","path":"///x","value":2}]`, want: `{"":{"":{"x":2}},"x":0}`},
		{name: "remove empty member", doc: `{"":1,"a":2}`, patch: `[{"op":"remove","path":"/"}]`, want: `{"a":2}`},
		{name: "test empty member", doc: `{"":{"k":1}}`, patch: `[{"op":"test","path":"/","value":{"k":1}}]`, want: `{"":{"k":1}}`},
		{name: "copy from empty member", doc: `{"":[1]}`, patch: `[{"op":"copy","from":"/","path":"/c"}]`, want: `{"":[1],"c":[1]}`},
		{name: "placeholder-like member survives", doc: "{\"\":1,\"\\u0000rao-empty-0\":2}", patch: `[{"op":"replace","path":"/","value":3}]`, want: "{\"\":3,\"\\u0000rao-empty-0\":2}"},
		{name: "value with empty member added then addressed", doc: `{}`, patch: `[{"op":"add","path":"/a","value":{"":{"b":1}}},{"op":"replace","path":"/a//b","value":2}]`, want: `{"a":{"":{"b":2}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Patch
			if err := json.Unmarshal([]byte(tc.patch), &p); err != nil {
				t.Fatalf("decode patch: %v", err)
			}
			got, err := Apply([]byte(tc.doc), p)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if string(got) != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []struct {
		name   string
		doc    string
		patch  Patch
		alsoIs error
	}{
		{name: "doc not JSON", doc: `{`, patch: Patch{}, alsoIs: ErrInvalidJSON},
		{name: "scalar doc", doc: `"x"`, patch: Patch{{Op: OpReplace, Path: "", Value: json.RawMessage(`1`)}}, alsoIs: ErrInvalidState},
		{name: "value not JSON", doc: `{}`, patch: Patch{{Op: OpAdd, Path: "/a", Value: json.RawMessage(`{`)}}, alsoIs: ErrInvalidPatch},
		{name: "unknown op", doc: `{}`, patch: Patch{{Op: "spam", Path: "/a", Value: json.RawMessage(`1`)}}, alsoIs: ErrInvalidPatch},
		{name: "add without value", doc: `{}`, patch: Patch{{Op: OpAdd, Path: "/a"}}, alsoIs: ErrInvalidPatch},
		{name: "missing member", doc: `{}`, patch: Patch{{Op: OpRemove, Path: "/a"}}},
		{name: "missing parent", doc: `{}`, patch: Patch{{Op: OpAdd, Path: "/a/b", Value: json.RawMessage(`1`)}}},
		{name: "negative index", doc: `{"a":[1,2]}`, patch: Patch{{Op: OpRemove, Path: "/a/-1"}}},
		{name: "index out of range", doc: `{"a":[1,2]}`, patch: Patch{{Op: OpAdd, Path: "/a/3", Value: json.RawMessage(`1`)}}},
		{name: "failed test", doc: `{"a":1}`, patch: Patch{{Op: OpTest, Path: "/a", Value: json.RawMessage(`2`)}}},
		{name: "pointer without slash", doc: `{}`, patch: Patch{{Op: OpAdd, Path: "a", Value: json.RawMessage(`1`)}}},
		{name: "failing op with empty member", doc: `{"":1}`, patch: Patch{{Op: OpRemove, Path: "//x"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Apply([]byte(tc.doc), tc.patch)
			if !errors.Is(err, ErrApply) {
				t.Fatalf("got %v, want ErrApply", err)
			}
			if tc.alsoIs != nil && !errors.Is(err, tc.alsoIs) {
				t.Fatalf("got %v, want it to wrap %v too", err, tc.alsoIs)
			}
		})
	}
}

func TestOpValueNull(t *testing.T) {
	var p Patch
	if err := json.Unmarshal([]byte(`[{"op":"replace","path":"/a","value":null}]`), &p); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if string(p[0].Value) != "null" {
		t.Fatalf("null value decoded as %q, want the 4 bytes null", p[0].Value)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	got, err := Apply([]byte(`{"a":1}`), p)
	if err != nil || string(got) != `{"a":null}` {
		t.Fatalf("Apply = %s, %v", got, err)
	}
}

func TestPatchMarshalJSON(t *testing.T) {
	tests := []struct {
		name string
		p    Patch
		want string
	}{
		{name: "nil is empty array", p: nil, want: `[]`},
		{name: "remove has no value", p: Patch{{Op: OpRemove, Path: "/a"}}, want: `[{"op":"remove","path":"/a"}]`},
		{name: "move has from", p: Patch{{Op: OpMove, From: "/a", Path: "/b"}}, want: `[{"op":"move","path":"/b","from":"/a"}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(mustMarshal(t, tc.p)); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
	t.Run("invalid value", func(t *testing.T) {
		if _, err := json.Marshal(Patch{{Op: OpAdd, Path: "/a", Value: json.RawMessage(`{`)}}); err == nil {
			t.Fatal("marshalled an invalid value")
		}
	})
}

func TestPatchValidate(t *testing.T) {
	tests := []struct {
		name string
		p    Patch
		ok   bool
	}{
		{name: "empty", p: Patch{}, ok: true},
		{name: "all delta ops", p: Patch{{Op: OpAdd, Path: "/a", Value: json.RawMessage(`1`)}, {Op: OpRemove, Path: "/b"}, {Op: OpReplace, Path: "", Value: json.RawMessage(`{}`)}}, ok: true},
		{name: "move not allowed", p: Patch{{Op: OpMove, From: "/a", Path: "/b"}}},
		{name: "test not allowed", p: Patch{{Op: OpTest, Path: "/a", Value: json.RawMessage(`1`)}}},
		{name: "from not allowed", p: Patch{{Op: OpRemove, From: "/x", Path: "/a"}}},
		{name: "add without value", p: Patch{{Op: OpAdd, Path: "/a"}}},
		{name: "replace with invalid value", p: Patch{{Op: OpReplace, Path: "/a", Value: json.RawMessage(`nope`)}}},
		{name: "remove with value", p: Patch{{Op: OpRemove, Path: "/a", Value: json.RawMessage(`1`)}}},
		{name: "bad pointer", p: Patch{{Op: OpRemove, Path: "a"}}},
		{name: "bad escape", p: Patch{{Op: OpRemove, Path: "/a~2"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			if tc.ok && err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if !tc.ok && !errors.Is(err, ErrInvalidPatch) {
				t.Fatalf("got %v, want ErrInvalidPatch", err)
			}
		})
	}
}

func TestApplyLooseIndexes(t *testing.T) {
	tests := []struct {
		name  string
		doc   string
		patch Patch
		want  string // empty: must fail
	}{
		{name: "leading zero on array", doc: `{"a":[1,2]}`, patch: Patch{{Op: OpRemove, Path: "/a/01"}}},
		{name: "plus sign on array", doc: `{"a":[1,2]}`, patch: Patch{{Op: OpReplace, Path: "/a/+1", Value: json.RawMessage(`3`)}}},
		{name: "minus zero on array", doc: `[1,2]`, patch: Patch{{Op: OpTest, Path: "/-0", Value: json.RawMessage(`1`)}}},
		{name: "loose from", doc: `{"a":[1,2]}`, patch: Patch{{Op: OpCopy, From: "/a/00", Path: "/b"}}},
		{name: "array created by an earlier op", doc: `{}`, patch: Patch{{Op: OpAdd, Path: "/a", Value: json.RawMessage(`[1]`)}, {Op: OpRemove, Path: "/a/00"}}},
		{name: "leading zero is a member name", doc: `{"a":{"01":1}}`, patch: Patch{{Op: OpRemove, Path: "/a/01"}}, want: `{"a":{}}`},
		{name: "plus member name", doc: `{"+1":[5,6]}`, patch: Patch{{Op: OpRemove, Path: "/+1/1"}}, want: `{"+1":[5]}`},
		{name: "path leaves the document", doc: `{"a":1}`, patch: Patch{{Op: OpRemove, Path: "/b/01"}}},
		{name: "path through a scalar", doc: `{"a":1}`, patch: Patch{{Op: OpRemove, Path: "/a/01"}}},
		{name: "index past the end before a loose token", doc: `{"a":[[1]]}`, patch: Patch{{Op: OpRemove, Path: "/a/3/01"}}},
		{name: "member name token on array", doc: `{"a":[[1]]}`, patch: Patch{{Op: OpRemove, Path: "/a/x/01"}}},
		{name: "empty member then loose index", doc: `{"":[1,2]}`, patch: Patch{{Op: OpRemove, Path: "//01"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Apply([]byte(tc.doc), tc.patch)
			if tc.want == "" {
				if !errors.Is(err, ErrApply) {
					t.Fatalf("Apply = %s, %v; want ErrApply", got, err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("Apply = %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestIsLooseIndex(t *testing.T) {
	for tok, want := range map[string]bool{"01": true, "00": true, "+1": true, "-0": true, "-3": true,
		"0": false, "10": false, "": false, "-": false, "+": false, "a1": false, "1e0": false, "+-1": false} {
		if got := isLooseIndex(tok); got != want {
			t.Errorf("isLooseIndex(%q) = %v, want %v", tok, got, want)
		}
	}
}
