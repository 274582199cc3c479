package recorder

import "sync"

// keyLock serialises work per key (run id) within one process, so one
// recorder never races itself on a run's history; recorders in other
// processes are kept consistent by the store's expected-sequence check.
type keyLock struct {
	mu    sync.Mutex
	locks map[string]*keyEntry
}

type keyEntry struct {
	mu   sync.Mutex
	refs int
}

func newKeyLock() *keyLock { return &keyLock{locks: map[string]*keyEntry{}} }

// lock locks key and returns its unlock function.
func (k *keyLock) lock(key string) func() {
	k.mu.Lock()
	e := k.locks[key]
	if e == nil {
		e = &keyEntry{}
		k.locks[key] = e
	}
	e.refs++
	k.mu.Unlock()
	e.mu.Lock()
	return func() {
		e.mu.Unlock()
		k.mu.Lock()
		e.refs--
		if e.refs == 0 {
			delete(k.locks, key)
		}
		k.mu.Unlock()
	}
}
