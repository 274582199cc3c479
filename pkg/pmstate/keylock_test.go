package pmstate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/codali-dev/codali/pkg/cognition"
)

// TestUpdatesOfOneStoreDoNotRace: concurrent updates of one project through
// one Store run one at a time, so none loses a compare-and-set and each
// update function runs once.
func TestUpdatesOfOneStoreDoNotRace(t *testing.T) {
	const writers = 16
	s, _ := newStore(t)
	ctx := testCtx(t)
	var calls atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.Update(ctx, "shared", func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
				calls.Add(1)
				return nil, []cognition.L1MemoryPatchOp{cognition.AppendOp(fmt.Sprintf("w%02d", i))}, nil
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	if n := calls.Load(); n != writers {
		t.Errorf("update functions ran %d times for %d updates: they raced", n, writers)
	}
	st, rev, err := s.Get(ctx, "shared")
	if err != nil {
		t.Fatal(err)
	}
	if rev != writers || len(st.L1Memory.Entries) != writers {
		t.Errorf("revision %d, %d entries, want %d each", rev, len(st.L1Memory.Entries), writers)
	}
	for range writers {
		if err := s.AddFailure(ctx, "shared", Failure{RunID: "r", Attempt: int(calls.Add(1))}, 0); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.locks.m) != 0 {
		t.Errorf("%d key locks left after every update returned", len(s.locks.m))
	}
}

// TestUpdateWaitingForItsTurnStopsWithItsContext: an update queued behind
// another of the same project gives up when its context ends, writing
// nothing, and the lock is free again afterwards.
func TestUpdateWaitingForItsTurnStopsWithItsContext(t *testing.T) {
	s, kv := newStore(t)
	ctx := testCtx(t)
	inside, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		_, err := s.Update(ctx, "p", func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
			close(inside)
			<-release
			return nil, []cognition.L1MemoryPatchOp{cognition.AppendOp("first")}, nil
		})
		first <- err
	}()
	<-inside
	waiting, cancel := context.WithCancel(ctx)
	second := make(chan error, 1)
	go func() {
		_, err := s.Update(waiting, "p", appendFn("second"))
		second <- err
	}()
	cancel()
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Fatalf("queued update: %v, want context.Canceled", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("first update: %v", err)
	}
	if _, err := s.Update(ctx, "p", appendFn("third")); err != nil {
		t.Fatalf("third update: %v", err)
	}
	st, _, err := s.Get(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if got := st.L1Memory.Entries; len(got) != 2 || got[0] != "first" || got[1] != "third" {
		t.Errorf("entries %q, want first and third", got)
	}
	if rev := kvRevision(t, kv, "p"); rev != 2 {
		t.Errorf("KV revision %d, want 2", rev)
	}
}
