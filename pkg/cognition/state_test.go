package cognition

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

func TestNewStateJSONShape(t *testing.T) {
	want := `{"revision":0,"goal_tree":{"root_partition":["Preserve operational continuity.","Seek advantageous state transitions.","Protect long-term viability."],` +
		`"user_partition":{"node_id":"user-root","summary":"user goals","weight":0,"children":[]}},"l1_memory":{"entries":[]}}`
	if got := mustJSON(t, NewState()); got != want {
		t.Errorf("NewState JSON\n got %s\nwant %s", got, want)
	}
	if err := Validate(NewState()); err != nil {
		t.Errorf("NewState is invalid: %v", err)
	}
}

func TestNilSlicesEncodeAsArrays(t *testing.T) {
	var s CognitionState
	s.GoalTree.UserPartition = GoalNode{NodeID: UserRootID}
	want := `{"revision":0,"goal_tree":{"root_partition":[],"user_partition":{"node_id":"user-root","summary":"","weight":0,"children":[]}},"l1_memory":{"entries":[]}}`
	if got := mustJSON(t, s); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestRootPartitionIsAFreshCopy(t *testing.T) {
	a := RootPartition()
	a[0] = "changed"
	if RootPartition()[0] != RootGoalContinuity {
		t.Fatal("RootPartition shares its backing array")
	}
}

func TestDecodeStateRoundTrip(t *testing.T) {
	s := stateWith(12, []string{"one", "two"}, node("a", 3, node("a1", -4)), node("b", 1000))
	data, err := EncodeState(s)
	if err != nil {
		t.Fatalf("EncodeState: %v", err)
	}
	got, err := DecodeState(data)
	if err != nil {
		t.Fatalf("DecodeState: %v", err)
	}
	if !got.Equal(s) {
		t.Errorf("round trip\n got %s\nwant %s", mustJSON(t, got), mustJSON(t, s))
	}
}

func TestDecodeStateRebuildsRootPartition(t *testing.T) {
	tests := []struct {
		name string
		doc  string
	}{
		{name: "stale root partition", doc: `{"revision":3,"goal_tree":{"root_partition":["old goal"],"user_partition":{"node_id":"user-root","summary":"s","weight":1}},"l1_memory":{"entries":["m"]}}`},
		{name: "absent root partition, children and entries", doc: `{"revision":3,"goal_tree":{"user_partition":{"node_id":"user-root","summary":"s","weight":1,"children":null}},"l1_memory":{}}`},
		{name: "unknown keys are ignored", doc: `{"revision":3,"extra":true,"goal_tree":{"user_partition":{"node_id":"user-root","summary":"s","weight":1,"note":"x"}},"l1_memory":{"entries":[]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeState([]byte(tt.doc))
			if err != nil {
				t.Fatalf("DecodeState: %v", err)
			}
			if !slices.Equal(got.GoalTree.RootPartition, RootPartition()) {
				t.Errorf("root partition = %q", got.GoalTree.RootPartition)
			}
			if got.Revision != 3 || got.GoalTree.UserPartition.Weight != 1 || got.L1Memory.Entries == nil {
				t.Errorf("unexpected state %s", mustJSON(t, got))
			}
		})
	}
}

func TestDecodeStateErrors(t *testing.T) {
	const root = `{"node_id":"user-root","summary":"s","weight":0}`
	tests := []struct {
		name    string
		doc     string
		wantErr error
	}{
		{name: "not JSON", doc: `{`, wantErr: ErrInvalidState},
		{name: "not an object", doc: `[]`, wantErr: ErrInvalidField},
		{name: "missing revision", doc: `{"goal_tree":{"user_partition":` + root + `},"l1_memory":{}}`, wantErr: ErrMissingField},
		{name: "negative revision", doc: `{"revision":-1,"goal_tree":{"user_partition":` + root + `},"l1_memory":{}}`, wantErr: ErrInvalidField},
		{name: "missing goal tree", doc: `{"revision":1,"l1_memory":{}}`, wantErr: ErrMissingField},
		{name: "goal tree not an object", doc: `{"revision":1,"goal_tree":[],"l1_memory":{}}`, wantErr: ErrInvalidField},
		{name: "missing l1 memory", doc: `{"revision":1,"goal_tree":{"user_partition":` + root + `}}`, wantErr: ErrMissingField},
		{name: "l1 memory not an object", doc: `{"revision":1,"goal_tree":{"user_partition":` + root + `},"l1_memory":[]}`, wantErr: ErrInvalidField},
		{name: "entries not strings", doc: `{"revision":1,"goal_tree":{"user_partition":` + root + `},"l1_memory":{"entries":[1]}}`, wantErr: ErrInvalidField},
		{name: "missing user partition", doc: `{"revision":1,"goal_tree":{},"l1_memory":{}}`, wantErr: ErrMissingField},
		{name: "root partition not strings", doc: `{"revision":1,"goal_tree":{"root_partition":[1],"user_partition":` + root + `},"l1_memory":{}}`, wantErr: ErrInvalidField},
		{name: "user partition not an object", doc: `{"revision":1,"goal_tree":{"user_partition":"x"},"l1_memory":{}}`, wantErr: ErrInvalidField},
		{name: "node without node_id", doc: `{"revision":1,"goal_tree":{"user_partition":{"summary":"s","weight":0}},"l1_memory":{}}`, wantErr: ErrMissingField},
		{name: "node without summary", doc: `{"revision":1,"goal_tree":{"user_partition":{"node_id":"user-root","weight":0}},"l1_memory":{}}`, wantErr: ErrMissingField},
		{name: "node without weight", doc: `{"revision":1,"goal_tree":{"user_partition":{"node_id":"user-root","summary":"s"}},"l1_memory":{}}`, wantErr: ErrMissingField},
		{name: "child without weight", doc: `{"revision":1,"goal_tree":{"user_partition":{"node_id":"user-root","summary":"s","weight":0,"children":[{"node_id":"a","summary":"a"}]}},"l1_memory":{}}`, wantErr: ErrMissingField},
		{name: "children not a list", doc: `{"revision":1,"goal_tree":{"user_partition":{"node_id":"user-root","summary":"s","weight":0,"children":{}}},"l1_memory":{}}`, wantErr: ErrInvalidField},
		{name: "weight not an int32", doc: `{"revision":1,"goal_tree":{"user_partition":{"node_id":"user-root","summary":"s","weight":3000000000}},"l1_memory":{}}`, wantErr: ErrInvalidField},
		{name: "summary not a string", doc: `{"revision":1,"goal_tree":{"user_partition":{"node_id":"user-root","summary":5,"weight":0}},"l1_memory":{}}`, wantErr: ErrInvalidField},
		{name: "valid JSON, invalid state", doc: `{"revision":1,"goal_tree":{"user_partition":{"node_id":"root","summary":"s","weight":0}},"l1_memory":{}}`, wantErr: ErrInvalidState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeState([]byte(tt.doc))
			if !errors.Is(err, ErrInvalidState) {
				t.Errorf("error %v does not wrap ErrInvalidState", err)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v does not wrap %v", err, tt.wantErr)
			}
		})
	}
}

func TestEncodeStateRejectsInvalidState(t *testing.T) {
	s := NewState()
	s.GoalTree.UserPartition.Weight = 2000
	if _, err := EncodeState(s); !errors.Is(err, ErrInvalidState) {
		t.Errorf("EncodeState error = %v, want ErrInvalidState", err)
	}
}

func TestCloneIsDeep(t *testing.T) {
	orig := stateWith(1, []string{"a"}, node("x", 1, node("y", 2)))
	before := mustJSON(t, orig)
	c := orig.Clone()
	c.GoalTree.UserPartition.Children[0].Children[0].Weight = 9
	c.GoalTree.RootPartition[1] = "changed"
	c.L1Memory.Entries[0] = "changed"
	if mustJSON(t, orig) != before {
		t.Error("Clone shares memory with the original")
	}
	var empty CognitionState
	if e := empty.Clone(); e.GoalTree.RootPartition != nil || e.L1Memory.Entries != nil || e.GoalTree.UserPartition.Children != nil {
		t.Error("Clone turned nil slices into empty ones")
	}
}

func TestEqual(t *testing.T) {
	base := stateWith(1, []string{"a"}, node("x", 1))
	tests := []struct {
		name   string
		change func(*CognitionState)
		want   bool
	}{
		{name: "identical", change: func(*CognitionState) {}, want: true},
		{name: "nil and empty lists are equal", change: func(s *CognitionState) {
			s.GoalTree.UserPartition.Children[0].Children = nil
		}, want: true},
		{name: "revision differs", change: func(s *CognitionState) { s.Revision++ }, want: false},
		{name: "root partition differs", change: func(s *CognitionState) { s.GoalTree.RootPartition = nil }, want: false},
		{name: "child weight differs", change: func(s *CognitionState) { s.GoalTree.UserPartition.Children[0].Weight = 2 }, want: false},
		{name: "child summary differs", change: func(s *CognitionState) { s.GoalTree.UserPartition.Children[0].Summary = "other" }, want: false},
		{name: "extra grandchild", change: func(s *CognitionState) {
			s.GoalTree.UserPartition.Children[0].Children = []GoalNode{node("z", 0)}
		}, want: false},
		{name: "memory entry differs", change: func(s *CognitionState) { s.L1Memory.Entries[0] = "b" }, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			other := base.Clone()
			tt.change(&other)
			if got := base.Equal(other); got != tt.want {
				t.Errorf("Equal = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFind(t *testing.T) {
	root := node(UserRootID, 0, node("a", 1, node("a1", 2)), node("b", 3))
	tests := []struct {
		name   string
		id     string
		want   int32
		wantOK bool
	}{
		{name: "root", id: UserRootID, want: 0, wantOK: true},
		{name: "nested", id: "a1", want: 2, wantOK: true},
		{name: "later sibling", id: "b", want: 3, wantOK: true},
		{name: "missing", id: "zz", wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := root.Find(tt.id)
			if ok != tt.wantOK || (ok && n.Weight != tt.want) {
				t.Errorf("Find(%q) = %+v, %v", tt.id, n, ok)
			}
		})
	}
}

func TestGoalNodeDecodeAcceptsMissingChildren(t *testing.T) {
	var n GoalNode
	if err := json.Unmarshal([]byte(`{"node_id":"a","summary":"b","weight":-3}`), &n); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if n.NodeID != "a" || n.Summary != "b" || n.Weight != -3 || len(n.Children) != 0 {
		t.Errorf("decoded %+v", n)
	}
}

func TestDecodeObjectRejectsBrokenJSON(t *testing.T) {
	// json.Unmarshal validates before calling UnmarshalJSON, so only direct
	// callers can hand decodeObject broken input.
	if _, err := decodeObject([]byte(`{"a":`)); !errors.Is(err, ErrInvalidField) {
		t.Errorf("error %v, want ErrInvalidField", err)
	}
}
