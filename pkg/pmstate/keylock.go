package pmstate

import (
	"context"
	"sync"
)

// keyLocks serialises a Store's own read-apply-write cycles per key.
// Concurrent runs of one project in one process (the architect adding its
// goal, the critic pruning another's) would otherwise lose each other's
// compare-and-set and back off; queued, each reads the state the previous
// one wrote and its write succeeds unless another process wrote between.
// Writers in other processes are still ordered by the compare-and-set.
type keyLocks struct {
	mu sync.Mutex
	m  map[string]*keyLock
}

// keyLock is one key's lock: a one-slot channel, so a waiter can give up
// when its context ends, and the number of holders and waiters, so that an
// unused key's entry is dropped.
type keyLock struct {
	slot chan struct{}
	refs int
}

// lock waits until key is free or ctx ends; on success the caller must
// call the returned unlock once.
func (k *keyLocks) lock(ctx context.Context, key string) (unlock func(), err error) {
	k.mu.Lock()
	if k.m == nil {
		k.m = map[string]*keyLock{}
	}
	l, ok := k.m[key]
	if !ok {
		l = &keyLock{slot: make(chan struct{}, 1)}
		k.m[key] = l
	}
	l.refs++
	k.mu.Unlock()
	release := func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		if l.refs--; l.refs == 0 {
			delete(k.m, key)
		}
	}
	select {
	case l.slot <- struct{}{}:
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-l.slot
			release()
		})
	}, nil
}
