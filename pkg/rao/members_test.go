package rao

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// splitObject and splitArray check the document first, as callers must.
func checkedObject(doc []byte) ([]Member, error) {
	d, err := CheckJSON(doc)
	if err != nil {
		return nil, err
	}
	return d.Members()
}

func checkedArray(doc []byte) ([]ValidJSON, error) {
	d, err := CheckJSON(doc)
	if err != nil {
		return nil, err
	}
	return d.Elements()
}

func TestSplitObject(t *testing.T) {
	got, err := checkedObject([]byte(" \n{\"a\": 1, \"b\\u0041\":{\"c\":[1, \"]\\\"}\"]} ,\"a\":\"x\",\"e\":{}}\t "))
	if err != nil {
		t.Fatal(err)
	}
	want := []Member{{"a", ValidJSON("1")}, {"bA", ValidJSON(`{"c":[1, "]\"}"]}`)}, {"a", ValidJSON(`"x"`)}, {"e", ValidJSON(`{}`)}}
	if len(got) != len(want) {
		t.Fatalf("got %d members, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Key != want[i].Key || !bytes.Equal(got[i].Raw, want[i].Raw) {
			t.Errorf("member %d = %q %s, want %q %s", i, got[i].Key, got[i].Raw, want[i].Key, want[i].Raw)
		}
	}
	for doc, want := range map[string]error{
		``: ErrInvalidJSON, `{"a":1`: ErrInvalidJSON, `{"a":1}{}`: ErrInvalidJSON, `{"a":}`: ErrInvalidJSON,
		`{"a":1,}`: ErrInvalidJSON, `[1]`: ErrInvalidState, `"s"`: ErrInvalidState,
	} {
		if _, err := checkedObject([]byte(doc)); !errors.Is(err, want) {
			t.Errorf("Members(%q) = %v, want %v", doc, err, want)
		}
	}
}

func TestSplitArray(t *testing.T) {
	got, err := checkedArray([]byte(`[1, {"a":[2]} ,"x\"",[], -1.5e3 ,true,null]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1", `{"a":[2]}`, `"x\""`, "[]", "-1.5e3", "true", "null"}
	if fmt.Sprintf("%s", got) != fmt.Sprintf("%s", want) {
		t.Fatalf("got %s, want %s", got, want)
	}
	if got, err := checkedArray([]byte(` [ ] `)); err != nil || len(got) != 0 {
		t.Fatalf("empty array: %s, %v", got, err)
	}
	for doc, want := range map[string]error{
		``: ErrInvalidJSON, `[1`: ErrInvalidJSON, `[1,]`: ErrInvalidJSON, `[1] 2`: ErrInvalidJSON,
		`[1 2]`: ErrInvalidJSON, `{}`: ErrInvalidState, `3`: ErrInvalidState,
	} {
		if _, err := checkedArray([]byte(doc)); !errors.Is(err, want) {
			t.Errorf("Elements(%q) = %v, want %v", doc, err, want)
		}
	}
}

// TestChainReusesUnchangedMembers: a Chain (which decodes only the
// members that changed) builds exactly the events Builder.Next builds
// from whole states, including when a member changes back, disappears,
// or the state stops being an object.
func TestChainReusesUnchangedMembers(t *testing.T) {
	pad := `"` + strings.Repeat("p", wholeBelow) + `"`
	states := []string{
		`{"a":1,"big":{"x":[1,2,3],"pad":` + pad + `,"l":[{"pad":` + pad + `,"n":1},{"pad":` + pad + `}]},"pad":` + pad + `}`,
		`{"a":1,"big":{"x":[1,2,3],"pad":` + pad + `,"l":[{"pad":` + pad + `,"n":2},{"pad":` + pad + `}]},"pad":` + pad + `}`,
		`{"a":1,"big":{"x":[1,2,3],"pad":` + pad + `,"l":[{"pad":` + pad + `,"n":2},{"pad":` + pad + `},3]},"pad":` + pad + `}`,
		`{"a":1,"big":{"x":[1,2,3],"pad":` + pad + `,"l":[{"pad":` + pad + `}]},"pad":` + pad + `}`,
		`[{"pad":` + pad + `,"n":1},{"pad":` + pad + `}]`,
		`[{"pad":` + pad + `,"n":2},{"pad":` + pad + `}]`,
		`{"a":1,"big":{"x":[1,2,3]},"list":[]}`,
		`{"a":2,"big":{"x":[1,2,3]},"list":[]}`,
		`{"big":{"x":[1,2,3]},"a":2,"list":["n"]}`,
		`{"a":2,"big":{"x":[1,2]},"list":["n"]}`,
		`{"a":2,"list":["n"],"new":{"k":true}}`,
		`{"a":2,"big":{"x":[1,2,3]},"list":["n"],"new":{"k":true}}`,
		`{"a":1,"a":3}`,
		`[1,2]`,
		`{"a":1}`,
	}
	b := Builder{RunID: "members", CheckpointEvery: 3}
	chain := NewChain(b)
	var prev *Event
	prevState := []byte(emptyState)
	ts := time.Unix(1700000000, 0)
	for i, s := range states {
		want, err := b.Next(prev, prevState, []byte(s), KindRun, fmt.Sprint("c", i), "", Meta{}, ts)
		if err != nil {
			t.Fatalf("state %d: Builder.Next: %v", i, err)
		}
		got, err := chain.Next([]byte(s), KindRun, fmt.Sprint("c", i), "", Meta{}, ts)
		if err != nil {
			t.Fatalf("state %d: Chain.Next: %v", i, err)
		}
		wb, _ := Encode(want)
		gb, _ := Encode(got)
		if !bytes.Equal(wb, gb) {
			t.Fatalf("state %d:\n got %s\nwant %s", i, gb, wb)
		}
		prev, prevState = &want, []byte(s)
	}
	for _, bad := range []string{`{"a":`, "\u00a0{}", `{"a":1}x`} {
		if _, err := chain.Next([]byte(bad), KindRun, "bad", "", Meta{}, ts); !errors.Is(err, ErrInvalidJSON) {
			t.Fatalf("invalid next state %q: err = %v, want ErrInvalidJSON", bad, err)
		}
	}
}

// TestChainDoesNotKeepTheCallersBuffer: a caller that reuses one buffer
// for successive states still gets events built from what it passed.
func TestChainDoesNotKeepTheCallersBuffer(t *testing.T) {
	pad := strings.Repeat("p", wholeBelow)
	a := []byte(`{"x":{"pad":"` + pad + `","v":"a"},"y":1}`)
	b := []byte(`{"x":{"pad":"` + pad + `","v":"b"},"y":1}`)
	buf := bytes.Clone(a)
	chain := NewChain(Builder{RunID: "buf"})
	ts := time.Unix(1700000000, 0)
	if _, err := chain.Next(buf, KindRun, "c1", "", Meta{}, ts); err != nil {
		t.Fatal(err)
	}
	copy(buf, b) // same length: the same offsets now hold the next state
	ev, err := chain.Next(buf, KindRun, "c2", "", Meta{}, ts)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Delta) != 1 || ev.Delta[0].Path != "/x/v" {
		t.Fatalf("delta = %+v, want one change of /x/v", ev.Delta)
	}
}
