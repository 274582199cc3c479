package pmstate

import (
	"errors"
	"slices"
	"testing"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go"
)

// twoStores returns a Store on its own connection (whose sent messages the
// caller counts) and another Store on the same bucket, as another process
// would have.
func twoStores(t *testing.T) (*Store, *nats.Conn, *Store) {
	t.Helper()
	srv, nc, js := natstest.StartJS(t)
	kv, err := provisionedBucket(testCtx(t), js)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(kv)
	if err != nil {
		t.Fatal(err)
	}
	_, ojs := natstest.Connect(t, srv)
	okv, err := ojs.KeyValue(testCtx(t), kv.Bucket())
	if err != nil {
		t.Fatal(err)
	}
	other, err := New(okv)
	if err != nil {
		t.Fatal(err)
	}
	return s, nc, other
}

// sent returns how many messages f made nc send.
func sent(nc *nats.Conn, f func()) uint64 {
	before := nc.Stats().OutMsgs
	f()
	return nc.Stats().OutMsgs - before
}

// TestUpdateWritesOnTopOfItsLastWrite: an update following the Store's own
// write sends only the compare-and-set; after another Store wrote, it
// loses that, reads and still applies on the current state, and it stops
// trying until a read shows nobody else wrote since its last write.
func TestUpdateWritesOnTopOfItsLastWrite(t *testing.T) {
	s, nc, other := twoStores(t)
	ctx := testCtx(t)
	update := func(v string) {
		t.Helper()
		if _, err := s.Update(ctx, "p", appendFn(v)); err != nil {
			t.Fatal(err)
		}
	}
	update("one")
	if n := sent(nc, func() { update("two") }); n != 1 {
		t.Errorf("an update on top of the last write sent %d messages, want 1 (no read)", n)
	}
	if _, err := other.Update(ctx, "p", appendFn("rival")); err != nil {
		t.Fatal(err)
	}
	if n := sent(nc, func() { update("three") }); n != 3 {
		t.Errorf("an update after another writer sent %d messages, want 3 (lost write, read, write)", n)
	}
	if n := sent(nc, func() { update("four") }); n != 2 {
		t.Errorf("the update after a lost one sent %d messages, want 2 (read, write)", n)
	}
	if n := sent(nc, func() { update("five") }); n != 1 {
		t.Errorf("once a read showed no other writer, an update sent %d messages, want 1", n)
	}
	st, rev, err := other.Get(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"one", "two", "rival", "three", "four", "five"}; !slices.Equal(st.L1Memory.Entries, want) || rev != 6 || st.Revision != 6 {
		t.Errorf("entries %q at revision %d (state %d), want %q at 6", st.L1Memory.Entries, rev, st.Revision, want)
	}
}

// TestUpdateOnTopOfItsLastWriteReadsWhatItWouldNotChange: an update that
// would change nothing on the Store's last write (the goal to prune is
// not there) reads the current state, where another Store has added it,
// and prunes it.
func TestUpdateOnTopOfItsLastWriteReadsWhatItWouldNotChange(t *testing.T) {
	s, _, other := twoStores(t)
	ctx := testCtx(t)
	if _, err := s.Update(ctx, "p", appendFn("mine")); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Update(ctx, "p", goalFn(cognition.SproutOp(cognition.UserRootID, "g", "a run's goal", 1))); err != nil {
		t.Fatal(err)
	}
	res, err := s.Update(ctx, "p", func(cur cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		if _, ok := cur.GoalTree.UserPartition.Find("g"); !ok {
			return nil, nil, nil
		}
		return []cognition.GoalTreePatchOp{cognition.PruneOp("g")}, nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Rev != 3 {
		t.Fatalf("result %+v, want the prune written as revision 3", res)
	}
	st, _, err := other.Get(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.GoalTree.UserPartition.Find("g"); ok {
		t.Error("the goal another Store added was not pruned")
	}
}

// TestLearningWritesOnTopOfItsLastWrite: the learning record's updates
// behave the same: one message on top of the Store's own write, nothing
// lost when another Store wrote in between.
func TestLearningWritesOnTopOfItsLastWrite(t *testing.T) {
	s, nc, other := twoStores(t)
	ctx := testCtx(t)
	add := func(st *Store, run string) {
		t.Helper()
		if err := st.AddGolden(ctx, "p", Golden{RunID: run, Intent: "intent of " + run}, 0); err != nil {
			t.Fatal(err)
		}
	}
	add(s, "r1")
	if n := sent(nc, func() { add(s, "r2") }); n != 1 {
		t.Errorf("a learning update on top of the last write sent %d messages, want 1", n)
	}
	add(other, "r3")
	add(s, "r4")
	l, err := other.Learning(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, g := range l.Golden {
		runs = append(runs, g.RunID)
	}
	if want := []string{"r1", "r2", "r3", "r4"}; !slices.Equal(runs, want) {
		t.Errorf("golden examples of %q, want %q", runs, want)
	}
}

// TestUpdateErrorIsNotJudgedOnItsLastWrite: an update function that
// refuses the state it is given is not refused on the Store's last write
// when another Store wrote since: the function runs again on the current
// state, which it accepts.
func TestUpdateErrorIsNotJudgedOnItsLastWrite(t *testing.T) {
	s, _, other := twoStores(t)
	ctx := testCtx(t)
	if _, err := s.Update(ctx, "p", appendFn("one")); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Update(ctx, "p", appendFn("rival")); err != nil {
		t.Fatal(err)
	}
	errNoRival := errors.New("no rival entry yet")
	res, err := s.Update(ctx, "p", func(cur cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		if !slices.Contains(cur.L1Memory.Entries, "rival") {
			return nil, nil, errNoRival
		}
		return nil, []cognition.L1MemoryPatchOp{cognition.AppendOp("two")}, nil
	})
	if err != nil {
		t.Fatalf("the update was refused on a state it was not current: %v", err)
	}
	if want := []string{"one", "rival", "two"}; !slices.Equal(res.State.L1Memory.Entries, want) {
		t.Errorf("entries %q, want %q", res.State.L1Memory.Entries, want)
	}
	// A refusal of the current state still ends the update.
	if _, err := s.Update(ctx, "p", func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		return nil, nil, errNoRival
	}); !errors.Is(err, errNoRival) {
		t.Errorf("error %v, want the function's", err)
	}
}
