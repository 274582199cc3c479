package pmstate

import (
	"crypto/sha256"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/codali-dev/codali/pkg/cognition"
)

// TestDecodedStates: equal bytes give equal states that the caller may
// change freely; other bytes are decoded again; undecodable bytes fail
// every time; the kept states stay bounded.
func TestDecodedStates(t *testing.T) {
	st := cognition.NewState()
	st.L1Memory.Entries = []string{"one"}
	st.GoalTree.UserPartition.Children = []cognition.GoalNode{{NodeID: "g1", Summary: "goal", Children: []cognition.GoalNode{{NodeID: "g2", Summary: "sub"}}}}
	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var d decodedStates
	first, err := d.decode("p", raw)
	if err != nil {
		t.Fatal(err)
	}
	first.L1Memory.Entries[0] = "changed"
	first.GoalTree.UserPartition.Children[0].Children[0].Summary = "changed"
	second, err := d.decode("p", raw)
	if err != nil {
		t.Fatal(err)
	}
	if !second.Equal(st) {
		t.Fatalf("a caller's change reached the kept state: %+v", second)
	}
	st.L1Memory.Entries = append(st.L1Memory.Entries, "two")
	raw2, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if third, err := d.decode("p", raw2); err != nil || !third.Equal(st) {
		t.Fatalf("new bytes: %+v %v", third, err)
	}
	for range 2 {
		if _, err := d.decode("p", []byte(`{"revision":`)); err == nil {
			t.Fatal("undecodable bytes decoded")
		}
	}
	for i := range maxDecoded + 5 {
		if _, err := d.decode("p"+strconv.Itoa(i), raw); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(d.m); n > maxDecoded {
		t.Fatalf("%d states kept, at most %d", n, maxDecoded)
	}
}

// TestKeptStateIsWhatDecodingGives: a state a Store wrote is kept exactly as
// decoding its bytes would give it (nil lists as empty ones), so a later
// read copying it sees the same value a fresh decoding would.
func TestKeptStateIsWhatDecodingGives(t *testing.T) {
	st := cognition.NewState()
	st, _ = cognition.Apply(st, []cognition.GoalTreePatchOp{
		cognition.SproutOp(cognition.UserRootID, "g1", "goal", 3),
		cognition.SproutOp("g1", "g2", "sub", 1),
	}, []cognition.L1MemoryPatchOp{cognition.AppendOp("one")})
	st.GoalTree.UserPartition.Children[0].Children[0].Children = nil
	for _, s := range []cognition.CognitionState{st, {GoalTree: cognition.GoalTree{UserPartition: cognition.GoalNode{NodeID: cognition.UserRootID, Summary: cognition.UserRootSummary}}}} {
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		want, err := cognition.DecodeState(data)
		if err != nil {
			t.Fatal(err)
		}
		var d decodedStates
		d.keep("p", sha256.Sum256(data), s)
		got, err := d.decode("p", data)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("kept state\n%#v\nwant, as decoded,\n%#v", got, want)
		}
	}
}
