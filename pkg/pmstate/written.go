package pmstate

import "sync"

// lastWrites remembers, per key, the value a Store last wrote and its
// revision, so that its next update of the key can write on top of it
// without reading it first: the compare-and-set at that revision fails if
// anyone wrote since, and the update then reads as usual. Whether that
// pays is tracked per key: a failed attempt stops it until a read finds
// the key still at the revision this Store last wrote (no other writer in
// between), which is the case whenever one process updates the key (one
// `codali up`, or the critic alone writing a learning record).
type lastWrites[T any] struct {
	mu sync.Mutex
	m  map[string]lastWrite[T]
}

type lastWrite[T any] struct {
	rev     uint64
	v       T
	trusted bool
}

// get returns a copy of the value last written under key and its
// revision, when writing on top of it is worth trying.
func (w *lastWrites[T]) get(key string, clone func(T) T) (T, uint64, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.m[key]
	if !ok || !e.trusted {
		var zero T
		return zero, 0, false
	}
	return clone(e.v), e.rev, true
}

// wrote records that v, which the cache now owns, was written as revision
// rev of key.
func (w *lastWrites[T]) wrote(key string, rev uint64, v T) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[string]lastWrite[T]{}
	}
	e, ok := w.m[key]
	if !ok && len(w.m) >= maxDecoded {
		for k := range w.m {
			delete(w.m, k)
			break
		}
	}
	w.m[key] = lastWrite[T]{rev: rev, v: v, trusted: !ok || e.trusted}
}

// read records that a read found key at revision rev: writing on top of
// the last write is worth trying again when nobody else wrote since.
func (w *lastWrites[T]) read(key string, rev uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e, ok := w.m[key]; ok && e.rev == rev && !e.trusted {
		e.trusted = true
		w.m[key] = e
	}
}

// missed records that writing on top of the last write lost the
// compare-and-set: someone else writes the key too.
func (w *lastWrites[T]) missed(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e, ok := w.m[key]; ok {
		e.trusted = false
		w.m[key] = e
	}
}
