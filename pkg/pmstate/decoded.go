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
	d.m[key] = decodedState{sum: sum, st: st.Clone()}
	return st, nil
}
