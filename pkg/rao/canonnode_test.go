package rao

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// messyJSON writes v as valid but non-canonical JSON: keys in reverse
// order with a duplicate (earlier, overridden) member, spaces, and
// letters written as \u escapes.
func messyJSON(rng *rand.Rand, v any) []byte {
	var b bytes.Buffer
	var write func(v any)
	str := func(s string) {
		b.WriteByte('"')
		for _, r := range s {
			switch {
			case r >= 'a' && r <= 'z' && rng.IntN(3) == 0:
				fmt.Fprintf(&b, `\u%04x`, r)
			case r == '"' || r == '\\' || r < 0x20:
				enc, _ := json.Marshal(string(r))
				b.Write(enc[1 : len(enc)-1])
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
	}
	write = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := keysSorted(x)
			slices.Reverse(keys)
			b.WriteString("{ ")
			for i, k := range keys {
				if i > 0 {
					b.WriteString(" ,\n")
				}
				if rng.IntN(4) == 0 {
					str(k)
					b.WriteString(`: "overridden", `)
				}
				str(k)
				b.WriteString(" : ")
				write(x[k])
			}
			b.WriteString(" }")
		case []any:
			b.WriteString("[ ")
			for i, e := range x {
				if i > 0 {
					b.WriteString(" , ")
				}
				write(e)
			}
			b.WriteString("]")
		case string:
			str(x)
		default:
			enc, _ := json.Marshal(x)
			b.Write(enc)
		}
	}
	write(v)
	return b.Bytes()
}

// TestChainCanonicalFromParts: the canonical state a chain stores (and
// snapshots), assembled from the canonical encodings of the parts it
// decoded and of the parts it reused, is CanonicalizeJSON of the
// non-canonical document it was given, over random sequences of states
// large enough to be decoded part by part.
func TestChainCanonicalFromParts(t *testing.T) {
	pad := strings.Repeat("p", 300)
	for seed := range uint64(30) {
		g := &stateGen{rng: rand.New(rand.NewPCG(seed, 5))}
		rng := rand.New(rand.NewPCG(seed, 6))
		c := NewChain(Builder{RunID: fmt.Sprintf("canon-%d", seed), CheckpointEvery: 1})
		for i, st := range g.sequence(t, 40)[1:] {
			v, err := decodeValue(st)
			if err != nil {
				t.Fatal(err)
			}
			doc := messyJSON(rng, map[string]any{"pad": pad, "s": v, "t": []any{v, pad, map[string]any{"u": v, "pad": pad}}})
			want, err := CanonicalizeJSON(doc)
			if err != nil {
				t.Fatalf("seed %d step %d: %v\n%s", seed, i, err, doc)
			}
			s, err := c.NextSealed(doc, KindRun, fmt.Sprintf("e%d", i), "", Meta{}, testTime.Add(time.Duration(i)))
			if err != nil {
				t.Fatal(err)
			}
			if got := c.State(); !bytes.Equal(got, want) {
				t.Fatalf("seed %d step %d: state\n got %s\nwant %s", seed, i, got, want)
			}
			if ev := s.Event(); !bytes.Equal(ev.Snapshot, want) {
				t.Fatalf("seed %d step %d: snapshot differs from the canonical state", seed, i)
			}
		}
	}
}
