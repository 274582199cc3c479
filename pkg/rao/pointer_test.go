package rao

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPointerRoundTrip(t *testing.T) {
	tests := []struct {
		name   string
		tokens []string
		want   string
	}{
		{name: "root", tokens: nil, want: ""},
		{name: "plain", tokens: []string{"a", "0"}, want: "/a/0"},
		{name: "empty token", tokens: []string{""}, want: "/"},
		{name: "escapes", tokens: []string{"a/b", "m~n", "~1"}, want: "/a~1b/m~0n/~01"},
		{name: "nested empty", tokens: []string{"", "", "x"}, want: "///x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := joinPointer(tc.tokens)
			if got != tc.want {
				t.Fatalf("joinPointer = %q, want %q", got, tc.want)
			}
			back, err := parsePointer(got)
			if err != nil {
				t.Fatalf("parsePointer: %v", err)
			}
			if !slices.Equal(back, tc.tokens) {
				t.Fatalf("parsePointer(%q) = %q, want %q", got, back, tc.tokens)
			}
		})
	}
}

func TestParsePointerErrors(t *testing.T) {
	for _, p := range []string{"a", "a/b", "/~", "/a~2", "/x/~"} {
		t.Run(p, func(t *testing.T) {
			if _, err := parsePointer(p); !errors.Is(err, ErrInvalidPatch) {
				t.Fatalf("parsePointer(%q) = %v, want ErrInvalidPatch", p, err)
			}
		})
	}
}

func TestCompareTokens(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want int
	}{
		{name: "numeric not lexicographic", a: "9", b: "10", want: -1},
		{name: "numeric equal", a: "10", b: "10", want: 0},
		{name: "index before name", a: "100", b: "a", want: -1},
		{name: "name after index", a: "5x", b: "10", want: 1},
		{name: "leading zero is a name", a: "09", b: "10", want: 1},
		{name: "names bytewise", a: "B", b: "a", want: -1},
		{name: "empty name after index", a: "", b: "0", want: 1},
		{name: "dash is a name", a: "-", b: "0", want: 1},
		{name: "huge indexes", a: "99999999999999999999", b: "100000000000000000000", want: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := compareTokens(tc.a, tc.b); got != tc.want {
				t.Fatalf("compareTokens(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
			if got := compareTokens(tc.b, tc.a); got != -tc.want {
				t.Fatalf("compareTokens(%q, %q) = %d, want %d", tc.b, tc.a, got, -tc.want)
			}
		})
	}
}

// TestCompareTokensTotalOrder checks antisymmetry and transitivity on
// random tokens mixing indexes and names (a cycle such as 9 < 10 < "5x" < 9
// would make sorting ill-defined).
func TestCompareTokensTotalOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"0", "1", "5", "9", "x", "~", "/", "-", ""}
	tok := func() string {
		n := rng.IntN(3)
		s := ""
		for range n + 1 {
			s += alphabet[rng.IntN(len(alphabet))]
		}
		return s
	}
	for range 20000 {
		a, b, c := tok(), tok(), tok()
		if compareTokens(a, b) != -compareTokens(b, a) {
			t.Fatalf("not antisymmetric: %q %q", a, b)
		}
		if compareTokens(a, b) <= 0 && compareTokens(b, c) <= 0 && compareTokens(a, c) > 0 {
			t.Fatalf("not transitive: %q <= %q <= %q but %q > %q", a, b, c, a, c)
		}
	}
}

func TestComparePaths(t *testing.T) {
	tests := []struct {
		name string
		a, b []string
		want int
	}{
		{name: "ancestor first", a: []string{"a"}, b: []string{"a", "0"}, want: -1},
		{name: "root first", a: nil, b: []string{""}, want: -1},
		{name: "segment-wise numeric", a: []string{"a", "9", "z"}, b: []string{"a", "10"}, want: -1},
		{name: "equal", a: []string{"a", "1"}, b: []string{"a", "1"}, want: 0},
		{name: "sibling names", a: []string{"b"}, b: []string{"a", "x"}, want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := comparePaths(tc.a, tc.b); got != tc.want {
				t.Fatalf("comparePaths(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
		})
	}
}
