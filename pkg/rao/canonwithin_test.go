package rao

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestCanonicalWithin: on random values and limits around their encoded
// size, canonicalWithin gives the canonical encoding exactly when it is at
// most limit bytes long, and nothing otherwise.
func TestCanonicalWithin(t *testing.T) {
	g := &stateGen{rng: rand.New(rand.NewPCG(7, 11))}
	within, over := 0, 0
	for range 2000 {
		v := g.value(4)
		want := canonicalBytes(v)
		for _, limit := range []int{-1, 0, len(want) / 2, len(want) - 1, len(want), len(want) + 1, 4 * len(want)} {
			got, ok := canonicalWithin(v, limit)
			switch {
			case len(want) <= limit && (!ok || !bytes.Equal(got, want)):
				t.Fatalf("limit %d, encoding %q (%d bytes): got %q, %v", limit, want, len(want), got, ok)
			case len(want) > limit && (ok || got != nil):
				t.Fatalf("limit %d under the encoding's %d bytes: got %q, %v", limit, len(want), got, ok)
			case ok:
				within++
			default:
				over++
			}
		}
	}
	if within == 0 || over == 0 {
		t.Fatalf("cases not covered: %d within, %d over", within, over)
	}
}
