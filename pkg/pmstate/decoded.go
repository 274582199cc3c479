package pmstate

import (
	"crypto/sha256"
	"sync"

	"github.com/codali-dev/codali/pkg/cognition"
)

// maxDecoded bounds the projects whose last decoded state a Store keeps.
const maxDecoded = 64

// decodedStates keeps, per key, the state last decoded and a digest of the
// bytes it came from. Concurrent runs of one project read and update the
// same entry, mostly at the same revision: equal bytes decode to an equal
// state, so a copy of the kept one replaces the JSON decoding.
type decodedStates struct {
	mu sync.Mutex
	m  map[string]decodedState
}

type decodedState struct {
	sum [sha256.Size]byte
	st  cognition.CognitionState
}

// decode returns the state value encodes, decoded or copied from the last
// decoding of the same bytes under key; the caller owns the result.
func (d *decodedStates) decode(key string, value []byte) (cognition.CognitionState, error) {
	sum := sha256.Sum256(value)
	d.mu.Lock()
	e, ok := d.m[key]
	d.mu.Unlock()
	if ok && e.sum == sum {
		return e.st.Clone(), nil
	}
	st, err := cognition.DecodeState(value)
	if err != nil {
		return cognition.CognitionState{}, err
	}
	d.keep(key, sum, st)
	return st, nil
}

// keep remembers st as the decoding of the bytes whose SHA-256 is sum
// under key, for instance the state a Store has just written: its next
// read of the same bytes then copies st instead of decoding them. st is
// copied; the caller keeps it.
func (d *decodedStates) keep(key string, sum [sha256.Size]byte, st cognition.CognitionState) {
	kept := asDecoded(st)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = map[string]decodedState{}
	}
	if _, ok := d.m[key]; !ok && len(d.m) >= maxDecoded {
		for k := range d.m {
			delete(d.m, k)
			break
		}
	}
	d.m[key] = decodedState{sum: sum, st: kept}
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
