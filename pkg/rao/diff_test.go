package rao

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name       string
		prev, next string
		want       string
	}{
		{name: "equal documents", prev: `{"a":1,"b":[1,2]}`, next: `{"b":[1,2],"a":1}`, want: `[]`},
		{name: "add member", prev: `{"a":1}`, next: `{"a":1,"b":{"c":true}}`, want: `[{"op":"add","path":"/b","value":{"c":true}}]`},
		{name: "remove member", prev: `{"a":1,"b":2}`, next: `{"a":1}`, want: `[{"op":"remove","path":"/b"}]`},
		{name: "replace scalar", prev: `{"a":"x","k":[1,2,3]}`, next: `{"a":"y","k":[1,2,3]}`, want: `[{"op":"replace","path":"/a","value":"y"}]`},
		{name: "number text matters", prev: `{"n":1,"k":"long value here"}`, next: `{"n":1.0,"k":"long value here"}`, want: `[{"op":"replace","path":"/n","value":1.0}]`},
		{name: "type change", prev: `{"a":{"b":1},"k":"long value here"}`, next: `{"a":[1],"k":"long value here"}`, want: `[{"op":"replace","path":"/a","value":[1]}]`},
		{name: "null is a value", prev: `{"a":null,"k":"long value here"}`, next: `{"a":false,"k":"long value here"}`, want: `[{"op":"replace","path":"/a","value":false}]`},
		{name: "root type change", prev: `{"a":1}`, next: `[1]`, want: `[{"op":"replace","path":"","value":[1]}]`},
		{
			name: "append to array",
			prev: `{"calls":[{"t":"read_file"},{"t":"write_file"}]}`,
			next: `{"calls":[{"t":"read_file"},{"t":"write_file"},{"t":"run_tests"},{"t":"search"}]}`,
			want: `[{"op":"add","path":"/calls/2","value":{"t":"run_tests"}},{"op":"add","path":"/calls/3","value":{"t":"search"}}]`,
		},
		{
			name: "insert at front",
			prev: `{"l":["bbbbbbbbbb","cccccccccc","dddddddddd"]}`,
			next: `{"l":["aaaaaaaaaa","bbbbbbbbbb","cccccccccc","dddddddddd"]}`,
			want: `[{"op":"add","path":"/l/0","value":"aaaaaaaaaa"}]`,
		},
		{
			name: "remove in the middle",
			prev: `{"l":["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","bbbbbbbbbb","cccccccccc","dddddddddddddddddddddddddddddd"]}`,
			next: `{"l":["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","dddddddddddddddddddddddddddddd"]}`,
			want: `[{"op":"remove","path":"/l/1"},{"op":"remove","path":"/l/1"}]`,
		},
		{
			name: "nested change inside array element",
			prev: `{"att":[{"n":1,"calls":["read_file main.go","write_file main.go"],"status":"running"}]}`,
			next: `{"att":[{"n":1,"calls":["read_file main.go","write_file main.go","run_tests"],"status":"passed"}]}`,
			want: `[{"op":"add","path":"/att/0/calls/2","value":"run_tests"},{"op":"replace","path":"/att/0/status","value":"passed"}]`,
		},
		{
			name: "escaped member names",
			prev: `{"a/b":1,"m~n":2,"":3,"k":"a long value that is not worth copying into the patch, really not worth it at all"}`,
			next: `{"a/b":10,"m~n":20,"":30,"k":"a long value that is not worth copying into the patch, really not worth it at all"}`,
			want: `[{"op":"replace","path":"/","value":30},{"op":"replace","path":"/a~1b","value":10},{"op":"replace","path":"/m~0n","value":20}]`,
		},
		{
			name: "nested empty member name",
			prev: `{"":{"":{"x":1,"k":"a long value that is not worth copying into the patch"}}}`,
			next: `{"":{"":{"x":2,"k":"a long value that is not worth copying into the patch"}}}`,
			want: `[{"op":"replace","path":"///x","value":2}]`,
		},
		{
			name: "sliding window",
			prev: `{"w":["warning one is long","warning two is long","warning three is long","warning four is long"]}`,
			next: `{"w":["warning two is long","warning three is long","warning four is long","warning five is long"]}`,
			want: `[{"op":"remove","path":"/w/0"},{"op":"add","path":"/w/3","value":"warning five is long"}]`,
		},
		{
			name: "insert at front, drop at end",
			prev: `{"w":["warning two is long","warning three is long","warning four is long","warning five is long"]}`,
			next: `{"w":["warning one is long","warning two is long","warning three is long","warning four is long"]}`,
			want: `[{"op":"add","path":"/w/0","value":"warning one is long"},{"op":"remove","path":"/w/4"}]`,
		},
		{
			name: "many changes collapse to one replace",
			prev: `{"a":[1,2,3,4],"k":"long value here"}`,
			next: `{"a":[5,6,7,8],"k":"long value here"}`,
			want: `[{"op":"replace","path":"/a","value":[5,6,7,8]}]`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Diff([]byte(tc.prev), []byte(tc.next))
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			if got := string(mustMarshal(t, p)); got != tc.want {
				t.Fatalf("patch\n got: %s\nwant: %s", got, tc.want)
			}
			if err := p.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			got, err := Apply([]byte(tc.prev), p)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			assertJSONEqual(t, got, []byte(tc.next))
		})
	}
}

func TestDiffErrors(t *testing.T) {
	tests := []struct {
		name       string
		prev, next string
	}{
		{name: "bad prev", prev: `{`, next: `{}`},
		{name: "bad next", prev: `{}`, next: `{} []`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Diff([]byte(tc.prev), []byte(tc.next)); !errors.Is(err, ErrInvalidJSON) {
				t.Fatalf("got %v, want ErrInvalidJSON", err)
			}
		})
	}
}

// TestDiffOrderNumericIndexes shows that indexes sort numerically: the adds
// for a grown array run 0..11 in order, not 0,1,10,11,2,...
func TestDiffOrderNumericIndexes(t *testing.T) {
	var items []string
	for i := range 12 {
		items = append(items, fmt.Sprintf(`"item-%02d-with-some-length"`, i))
	}
	// A long first element makes per-element adds cheaper than replacing
	// the whole array.
	first := `"` + strings.Repeat("x", 2000) + `"`
	next := `{"a":[` + first + "," + strings.Join(items[1:], ",") + `]}`
	prev := `{"a":[` + first + `]}`
	p, err := Diff([]byte(prev), []byte(next))
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	if len(p) != 11 {
		t.Fatalf("got %d ops, want 11: %s", len(p), mustMarshal(t, p))
	}
	for i, op := range p {
		if want := fmt.Sprintf("/a/%d", i+1); op.Op != OpAdd || op.Path != want {
			t.Fatalf("op %d = %s %s, want add %s", i, op.Op, op.Path, want)
		}
	}
}

func TestDiffDeterminism(t *testing.T) {
	tests := []struct {
		name        string
		prev, next  string
		prev2, nxt2 string // same documents, different key order and spacing
	}{
		{
			name:  "objects",
			prev:  `{"a":1,"b":{"x":[1,2],"y":"s"},"c":[{"k":1,"j":2}]}`,
			next:  `{"a":2,"b":{"x":[1,2,3],"z":null},"c":[{"k":1,"j":3}],"d":{"q":1,"p":2}}`,
			prev2: `{ "c":[{"j":2,"k":1}], "b":{"y":"s","x":[1,2]}, "a":1 }`,
			nxt2:  `{"d":{"p":2,"q":1},"c":[{"j":3,"k":1}],"b":{"z":null,"x":[1,2,3]},"a":2}`,
		},
		{
			name:  "many keys",
			prev:  `{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10}`,
			next:  `{"k1":0,"k2":0,"k3":0,"k4":0,"k5":0,"k6":0,"k7":0,"k8":0,"k9":0,"k11":11}`,
			prev2: `{"k10":10,"k9":9,"k8":8,"k7":7,"k6":6,"k5":5,"k4":4,"k3":3,"k2":2,"k1":1}`,
			nxt2:  `{"k11":11,"k9":0,"k8":0,"k7":0,"k6":0,"k5":0,"k4":0,"k3":0,"k2":0,"k1":0}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			first := mustDiffJSON(t, tc.prev, tc.next)
			for i := range 20 {
				if again := mustDiffJSON(t, tc.prev, tc.next); !bytes.Equal(again, first) {
					t.Fatalf("run %d differs:\n%s\n%s", i, again, first)
				}
			}
			if other := mustDiffJSON(t, tc.prev2, tc.nxt2); !bytes.Equal(other, first) {
				t.Fatalf("reordered input gives another delta:\n%s\n%s", other, first)
			}
		})
	}
}

// mustDiffJSON returns the marshalled Diff of two documents.
func mustDiffJSON(t *testing.T, prev, next string) []byte {
	t.Helper()
	p, err := Diff([]byte(prev), []byte(next))
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	return mustMarshal(t, p)
}

// TestSortedOrderSafety applies the unsorted generation order and the
// sorted order of the same operations on cases where index-shifting ops
// meet: both must give next. (The random property test repeats this on
// thousands of generated states.)
func TestSortedOrderSafety(t *testing.T) {
	long := func(i int) string { return fmt.Sprintf(`"element number %02d of the list"`, i) }
	list := func(idx ...int) string {
		var s []string
		for _, i := range idx {
			s = append(s, long(i))
		}
		return "[" + strings.Join(s, ",") + "]"
	}
	tests := []struct {
		name       string
		prev, next string
	}{
		{name: "shrink across 10", prev: `{"a":` + list(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11) + `}`, next: `{"a":` + list(0, 1) + `}`},
		{name: "grow across 10", prev: `{"a":` + list(0, 1, 2, 3, 4, 5, 6, 7, 8) + `}`, next: `{"a":` + list(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12) + `}`},
		{name: "middle removal with suffix", prev: `{"a":` + list(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11) + `}`, next: `{"a":` + list(0, 11) + `}`},
		{name: "edit low indexes and shrink", prev: `{"a":[{"v":1},{"v":2},{"v":3},{"v":4}],"k":` + long(0) + `}`, next: `{"a":[{"v":9},{"v":2}],"k":` + long(0) + `}`},
		{name: "edit low indexes and grow", prev: `{"a":[{"v":1,"w":` + long(1) + `},{"v":2}],"k":` + long(0) + `}`, next: `{"a":[{"v":9,"w":` + long(1) + `},{"v":2},{"v":3},{"v":4}],"k":` + long(0) + `}`},
		{name: "nested arrays", prev: `{"a":[[1,2,3],[4,5,6,7,8,9,10,11,12,13,14]],"k":` + long(0) + `}`, next: `{"a":[[1,2,3,4],[4,14]],"k":` + long(0) + `}`},
		{name: "slide across 10", prev: `{"a":` + list(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11) + `}`, next: `{"a":` + list(3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) + `}`},
		{name: "front insert across 10", prev: `{"a":` + list(5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) + `}`, next: `{"a":` + list(0, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12) + `}`},
		{name: "slide inside prefix and suffix", prev: `{"a":` + list(0, 1, 2, 3, 4, 5, 20) + `}`, next: `{"a":` + list(0, 2, 3, 4, 5, 6, 7, 20) + `}`},
		{name: "numeric member names", prev: `{"9":1,"10":2,"a":{"9":[1],"10":[2]}}`, next: `{"10":3,"a":{"9":[1,5],"10":[]}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkSortedSafety(t, []byte(tc.prev), []byte(tc.next))
		})
	}
}

// checkSortedSafety checks that generation order and sorted order of the
// diff of prev and next both turn prev into next, and that Diff returns
// the sorted order.
func checkSortedSafety(t testing.TB, prev, next []byte) {
	t.Helper()
	want, err := CanonicalizeJSON(next)
	if err != nil {
		t.Fatalf("next: %v", err)
	}
	cprev, err := CanonicalizeJSON(prev)
	if err != nil {
		t.Fatalf("prev: %v", err)
	}
	a, err := decodeValue(prev)
	if err != nil {
		t.Fatalf("prev: %v", err)
	}
	b, err := decodeValue(next)
	if err != nil {
		t.Fatalf("next: %v", err)
	}
	d, err := Diff(prev, next)
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	if err := d.Validate(); err != nil {
		t.Fatalf("Diff gave an invalid delta: %v", err)
	}
	got, err := Apply(prev, d)
	if err != nil {
		t.Fatalf("Diff does not apply: %v\nprev %s\npatch %s", err, prev, mustMarshal(t, d))
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Diff gives\n%s\nwant\n%s\npatch %s", got, want, mustMarshal(t, d))
	}
	fine := diffGenFine(a, b)
	fineUnsorted := toPatch(fine)
	sortGenOps(fine)
	fineSorted := toPatch(fine)
	gen := diffGen(a, b)
	unsorted := toPatch(gen)
	sortGenOps(gen)
	sorted := toPatch(gen)
	dKey := string(mustMarshal(t, d))
	if dKey != string(mustMarshal(t, sorted)) {
		t.Fatalf("Diff is not the sorted generation:\n%s\n%s", dKey, mustMarshal(t, sorted))
	}
	applied := map[string]bool{dKey: true}
	for _, c := range []struct {
		name string
		p    Patch
	}{{"unsorted", unsorted}, {"uncollapsed sorted", fineSorted}, {"uncollapsed unsorted", fineUnsorted}} {
		key := string(mustMarshal(t, c.p))
		if applied[key] {
			continue // same operations in the same order as a patch already applied
		}
		applied[key] = true
		res, err := applyCompact(cprev, c.p)
		if err == nil {
			res, err = canonicalResult(res)
		}
		if err != nil {
			t.Fatalf("%s patch does not apply: %v\nprev %s\npatch %s", c.name, err, prev, key)
		}
		if !bytes.Equal(res, want) {
			t.Fatalf("%s patch gives\n%s\nwant\n%s\npatch %s", c.name, res, want, key)
		}
	}
	for _, ops := range [][]genOp{gen, fine} {
		for i := 1; i < len(ops); i++ {
			if c := comparePaths(ops[i-1].path, ops[i].path); c > 0 || (c == 0 && ops[i-1].op > ops[i].op) {
				t.Fatalf("ops %d and %d out of order: %s", i-1, i, mustMarshal(t, toPatch(ops)))
			}
		}
	}
}

// diffGenFine is diffGen without collapsing: every change is an op of
// its own. Tests use it to exercise index-shifting ops.
func diffGenFine(a, b any) []genOp {
	d := differ{noCollapse: true}
	d.diff(nil, a, b)
	return d.ops
}
