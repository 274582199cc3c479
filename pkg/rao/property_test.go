package rao

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// stateGen produces random sequences of JSON states: objects and arrays
// that grow, shrink and change deep inside, with awkward member names.
type stateGen struct {
	rng *rand.Rand
}

var (
	genKeys    = []string{"a", "b", "c", "status", "", "~", "/", "a/b", "~1", "9", "10", "0", "x y", "é"}
	genNumbers = []string{"0", "1", "-1", "1.0", "-0", "1e3", "12345678901234567890", "0.25"}
)

func (g *stateGen) scalar() any {
	switch g.rng.IntN(5) {
	case 0:
		return nil
	case 1:
		return g.rng.IntN(2) == 0
	case 2:
		return json.Number(genNumbers[g.rng.IntN(len(genNumbers))])
	default:
		return fmt.Sprintf("s%d", g.rng.IntN(20))
	}
}

func (g *stateGen) value(depth int) any {
	if depth <= 0 {
		return g.scalar()
	}
	switch g.rng.IntN(4) {
	case 0:
		n := g.rng.IntN(5)
		a := make([]any, 0, n)
		for range n {
			a = append(a, g.value(depth-1))
		}
		return a
	case 1:
		n := g.rng.IntN(4)
		m := make(map[string]any, n)
		for range n {
			m[genKeys[g.rng.IntN(len(genKeys))]] = g.value(depth - 1)
		}
		return m
	default:
		return g.scalar()
	}
}

// mutate changes v somewhere at or below it and returns the new value.
func (g *stateGen) mutate(v any, depth int) any {
	switch x := v.(type) {
	case map[string]any:
		keys := keysSorted(x) // in order, so seeded runs are reproducible
		r := g.rng.IntN(10)
		switch {
		case len(keys) > 0 && r < 5 && depth < 5:
			k := keys[g.rng.IntN(len(keys))]
			x[k] = g.mutate(x[k], depth+1)
		case r < 8 || len(keys) == 0:
			x[genKeys[g.rng.IntN(len(genKeys))]] = g.value(2)
		default:
			delete(x, keys[g.rng.IntN(len(keys))])
		}
		return x
	case []any:
		r := g.rng.IntN(12)
		switch {
		case len(x) > 0 && r < 4 && depth < 5:
			i := g.rng.IntN(len(x))
			x[i] = g.mutate(x[i], depth+1)
		case r < 6:
			for range 1 + g.rng.IntN(4) {
				x = append(x, g.value(2))
			}
		case r < 8 && len(x) > 0:
			x = x[:len(x)-1-g.rng.IntN(len(x))]
		case r < 9 && len(x) > 0:
			i := g.rng.IntN(len(x))
			x = append(x[:i:i], x[i+1:]...)
		case r < 10:
			i := g.rng.IntN(len(x) + 1)
			x = slices.Insert(x, i, g.value(1))
		case r < 11:
			x = []any{}
		default:
			if len(x) > 0 {
				x[g.rng.IntN(len(x))] = g.value(2)
			}
		}
		return x
	default:
		return g.value(2)
	}
}

// sequence returns steps+1 canonical states starting from a random object.
func (g *stateGen) sequence(t testing.TB, steps int) [][]byte {
	t.Helper()
	cur := map[string]any{"status": "new", "calls": []any{}, "plan": map[string]any{"steps": []any{"a", "b"}}}
	out := [][]byte{canonicalBytes(cur)}
	for range steps {
		// Work on a fresh copy so earlier states are never aliased.
		v, err := decodeValue(out[len(out)-1])
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		for range 1 + g.rng.IntN(3) {
			v = g.mutate(v, 0)
		}
		out = append(out, canonicalBytes(v))
	}
	return out
}

// TestPropertyReconstruction: for 200 seeded random sequences of 50 steps,
// every delta (sorted and in generation order, collapsed or not) turns
// the previous state into the next, Diff is deterministic, and histories
// built from the sequence replay to every state with checkpoints every
// 10 events and every event alike.
func TestPropertyReconstruction(t *testing.T) {
	const sequences, steps, shards = 200, 50, 4
	for shard := range uint64(shards) {
		t.Run(fmt.Sprintf("shard-%d", shard), func(t *testing.T) {
			t.Parallel()
			for seed := shard; seed < sequences; seed += shards {
				checkSequence(t, seed, steps)
			}
		})
	}
}

// checkSequence runs the reconstruction properties on one seeded sequence.
func checkSequence(t *testing.T, seed uint64, steps int) {
	t.Helper()
	g := &stateGen{rng: rand.New(rand.NewPCG(seed, 42))}
	states := g.sequence(t, steps)
	for i := 1; i < len(states); i++ {
		checkSortedSafety(t, states[i-1], states[i])
	}
	if seed%10 != 0 {
		return
	}
	// History level: states[1:] are the run's states (states[0] is an
	// arbitrary object, the run starts from {}).
	run := states[1:]
	byDefault := buildHistory(t, fmt.Sprintf("prop-%d", seed), run, 0)
	everyEvent := buildHistory(t, fmt.Sprintf("prop-%d", seed), run, 1)
	for _, events := range [][]Event{byDefault, everyEvent} {
		got, err := States(events)
		if err != nil {
			t.Fatalf("seed %d: States: %v", seed, err)
		}
		for i, st := range got {
			if !bytes.Equal(st.Doc, run[i]) {
				t.Fatalf("seed %d: state %d differs:\n got %s\nwant %s", seed, i+1, st.Doc, run[i])
			}
		}
		if r := Verify(events); !r.OK() {
			t.Fatalf("seed %d: %s", seed, r)
		}
	}
	for _, upto := range []uint64{1, 9, 10, 11, 25, uint64(len(run))} {
		a, errA := Replay(byDefault, upto)
		b, errB := Replay(everyEvent, upto)
		if errA != nil || errB != nil {
			t.Fatalf("seed %d: Replay %d: %v / %v", seed, upto, errA, errB)
		}
		if !bytes.Equal(a, b) || !bytes.Equal(a, run[upto-1]) {
			t.Fatalf("seed %d: Replay %d differs between checkpoint intervals or from the state", seed, upto)
		}
	}
}
