package pmstate

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/natstest"
)

// TestConcurrentUpdatesLoseNothing runs N writers on the same project through
// two stores on separate connections (as two processes would) and checks
// that every write landed exactly once.
func TestConcurrentUpdatesLoseNothing(t *testing.T) {
	const writers = 16
	srv := natstest.Start(t)
	stores := make([]*Store, 2)
	for i := range stores {
		_, js := natstest.Connect(t, srv)
		kv, err := provisionedBucket(testCtx(t), js)
		if err != nil {
			t.Fatalf("bucket: %v", err)
		}
		if stores[i], err = New(kv); err != nil {
			t.Fatalf("New: %v", err)
		}
	}
	ctx := testCtx(t)

	var wg sync.WaitGroup
	results := make([]Result, writers)
	errs := make([]error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("w%02d", i)
			results[i], errs[i] = stores[i%2].Update(ctx, "shared", func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
				return []cognition.GoalTreePatchOp{cognition.SproutOp(cognition.UserRootID, id, "goal of "+id, int32(i))},
					[]cognition.L1MemoryPatchOp{cognition.AppendOp("memory of " + id)}, nil
			})
		}()
	}
	wg.Wait()

	revs := make([]uint64, 0, writers)
	for i := range writers {
		if errs[i] != nil {
			t.Fatalf("writer %d: %v", i, errs[i])
		}
		if !results[i].Changed || results[i].Rev != results[i].State.Revision {
			t.Errorf("writer %d: %+v", i, results[i])
		}
		revs = append(revs, results[i].Rev)
	}
	slices.Sort(revs)
	for i, r := range revs {
		if r != uint64(i+1) {
			t.Fatalf("writer revisions %v, want 1..%d each once", revs, writers)
		}
	}

	st, rev, err := stores[0].Get(ctx, "shared")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if rev != writers || st.Revision != writers {
		t.Errorf("KV revision %d, state revision %d, want %d", rev, st.Revision, writers)
	}
	if len(st.L1Memory.Entries) != writers || len(st.GoalTree.UserPartition.Children) != writers {
		t.Fatalf("got %d entries and %d goals, want %d each", len(st.L1Memory.Entries), len(st.GoalTree.UserPartition.Children), writers)
	}
	for i := range writers {
		id := fmt.Sprintf("w%02d", i)
		if _, ok := st.GoalTree.UserPartition.Find(id); !ok {
			t.Errorf("goal %s lost", id)
		}
		if !slices.Contains(st.L1Memory.Entries, "memory of "+id) {
			t.Errorf("memory of %s lost", id)
		}
	}
	if err := cognition.Validate(st); err != nil {
		t.Errorf("final state invalid: %v", err)
	}
}
