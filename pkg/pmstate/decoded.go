package pmstate

import (
	"crypto/sha256"
	"sync"

	"github.com/codali-dev/codali/pkg/cognition"
)

// maxDecoded bounds the keys whose last decoded value a cache keeps.
const maxDecoded = 64

// decodedCache keeps, per key, the value last decoded and a digest of the
// bytes it came from. Concurrent runs of one project read and update the
// same entries, mostly at the same revision: equal bytes decode to an
// equal value, so a copy of the kept one replaces the JSON decoding.
type decodedCache[T any] struct {
	mu sync.Mutex
	m  map[string]decodedEntry[T]
}

type decodedEntry[T any] struct {
	sum [sha256.Size]byte
	v   T
}

// decode returns the value the bytes encode, decoded by dec or copied
// (by clone) from the last decoding of the same bytes under key; the
// caller owns the result.
func (d *decodedCache[T]) decode(key string, value []byte, dec func([]byte) (T, error), clone func(T) T) (T, error) {
	sum := sha256.Sum256(value)
	d.mu.Lock()
	e, ok := d.m[key]
	d.mu.Unlock()
	if ok && e.sum == sum {
		return clone(e.v), nil
	}
	v, err := dec(value)
	if err != nil {
		var zero T
		return zero, err
	}
	d.keep(key, sum, clone(v))
	return v, nil
}

// keep remembers v, which the cache now owns, as the decoding of the bytes
// whose SHA-256 is sum under key.
func (d *decodedCache[T]) keep(key string, sum [sha256.Size]byte, v T) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = map[string]decodedEntry[T]{}
	}
	if _, ok := d.m[key]; !ok && len(d.m) >= maxDecoded {
		for k := range d.m {
			delete(d.m, k)
			break
		}
	}
	d.m[key] = decodedEntry[T]{sum: sum, v: v}
}

// decodedStates is the cache of decoded cognition states.
type decodedStates struct {
	decodedCache[cognition.CognitionState]
}

// decode returns the state value encodes, decoded or copied from the last
// decoding of the same bytes under key; the caller owns the result.
func (d *decodedStates) decode(key string, value []byte) (cognition.CognitionState, error) {
	return d.decodedCache.decode(key, value, cognition.DecodeState, cognition.CognitionState.Clone)
}

// keep remembers st as the decoding of the bytes whose SHA-256 is sum
// under key, for instance the state a Store has just written: its next
// read of the same bytes then copies st instead of decoding them. st is
// copied; the caller keeps it.
func (d *decodedStates) keep(key string, sum [sha256.Size]byte, st cognition.CognitionState) {
	d.decodedCache.keep(key, sum, asDecoded(st))
}

// asDecoded returns a deep copy of st as cognition.DecodeState gives it
// back from its JSON: the constant root partition, and every other list
// (child nodes, memory entries) non-nil, since a nil one is encoded as an
// empty array.
func asDecoded(st cognition.CognitionState) cognition.CognitionState {
	out := st.Clone()
	out.GoalTree.RootPartition = cognition.RootPartition()
	if out.L1Memory.Entries == nil {
		out.L1Memory.Entries = []string{}
	}
	nonNilChildren(&out.GoalTree.UserPartition)
	return out
}

func nonNilChildren(n *cognition.GoalNode) {
	if n.Children == nil {
		n.Children = []cognition.GoalNode{}
	}
	for i := range n.Children {
		nonNilChildren(&n.Children[i])
	}
}
