package cognition

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestGoalTreePatchOpJSON(t *testing.T) {
	tests := []struct {
		name string
		op   GoalTreePatchOp
		want string
	}{
		{name: "sprout", op: SproutOp("p", "n", "do it", -7), want: `{"op":"sprout","parent_node_id":"p","node_id":"n","summary":"do it","weight":-7}`},
		{name: "prune", op: PruneOp("n"), want: `{"op":"prune","node_id":"n"}`},
		{name: "tilt", op: TiltOp("n", 12), want: `{"op":"tilt","node_id":"n","weight":12}`},
		{name: "fields of other ops are not written", op: GoalTreePatchOp{Op: OpPrune, NodeID: "n", Summary: "x", Weight: 3, ParentNodeID: "p"}, want: `{"op":"prune","node_id":"n"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustJSON(t, tt.op); got != tt.want {
				t.Fatalf("marshal = %s, want %s", got, tt.want)
			}
			var back GoalTreePatchOp
			if err := json.Unmarshal([]byte(tt.want), &back); err != nil {
				t.Fatalf("unmarshal: %v", err)
			}
			want := tt.op
			if want.Op == OpPrune {
				want = PruneOp(tt.op.NodeID)
			}
			if back != want {
				t.Errorf("unmarshal = %+v, want %+v", back, want)
			}
		})
	}
}

func TestL1MemoryPatchOpJSON(t *testing.T) {
	tests := []struct {
		name string
		op   L1MemoryPatchOp
		want string
	}{
		{name: "append", op: AppendOp("note"), want: `{"op":"append","value":"note"}`},
		{name: "insert", op: InsertOp(3, "note"), want: `{"op":"insert","index":3,"value":"note"}`},
		{name: "remove", op: RemoveOp(0), want: `{"op":"remove","index":0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustJSON(t, tt.op); got != tt.want {
				t.Fatalf("marshal = %s, want %s", got, tt.want)
			}
			var back L1MemoryPatchOp
			if err := json.Unmarshal([]byte(tt.want), &back); err != nil {
				t.Fatalf("unmarshal: %v", err)
			}
			if back != tt.op {
				t.Errorf("unmarshal = %+v, want %+v", back, tt.op)
			}
		})
	}
}

func TestGoalTreePatchOpDecodeErrors(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		wantErr error
	}{
		{name: "not an object", doc: `["sprout"]`, wantErr: ErrInvalidField},
		{name: "missing op", doc: `{"node_id":"n"}`, wantErr: ErrMissingField},
		{name: "null op", doc: `{"op":null,"node_id":"n"}`, wantErr: ErrMissingField},
		{name: "op not a string", doc: `{"op":1,"node_id":"n"}`, wantErr: ErrInvalidField},
		{name: "unknown op", doc: `{"op":"graft","node_id":"n"}`, wantErr: ErrUnknownOp},
		{name: "op of the other family", doc: `{"op":"append","value":"v"}`, wantErr: ErrUnknownOp},
		{name: "sprout without parent", doc: `{"op":"sprout","node_id":"n","summary":"s","weight":1}`, wantErr: ErrMissingField},
		{name: "sprout without node id", doc: `{"op":"sprout","parent_node_id":"p","summary":"s","weight":1}`, wantErr: ErrMissingField},
		{name: "sprout without summary", doc: `{"op":"sprout","parent_node_id":"p","node_id":"n","weight":1}`, wantErr: ErrMissingField},
		{name: "sprout without weight", doc: `{"op":"sprout","parent_node_id":"p","node_id":"n","summary":"s"}`, wantErr: ErrMissingField},
		{name: "sprout with an empty node id", doc: `{"op":"sprout","parent_node_id":"p","node_id":"","summary":"s","weight":1}`, wantErr: ErrInvalidField},
		{name: "sprout with an empty parent id", doc: `{"op":"sprout","parent_node_id":"","node_id":"n","summary":"s","weight":1}`, wantErr: ErrInvalidField},
		{name: "sprout with a fractional weight", doc: `{"op":"sprout","parent_node_id":"p","node_id":"n","summary":"s","weight":1.5}`, wantErr: ErrInvalidField},
		{name: "sprout with a weight beyond int32", doc: `{"op":"sprout","parent_node_id":"p","node_id":"n","summary":"s","weight":2147483648}`, wantErr: ErrInvalidField},
		{name: "sprout with a string weight", doc: `{"op":"sprout","parent_node_id":"p","node_id":"n","summary":"s","weight":"1"}`, wantErr: ErrInvalidField},
		{name: "sprout with an unknown field", doc: `{"op":"sprout","parent_node_id":"p","node_id":"n","summary":"s","weight":1,"why":"x"}`, wantErr: ErrUnknownField},
		{name: "prune without node id", doc: `{"op":"prune"}`, wantErr: ErrMissingField},
		{name: "prune with a weight", doc: `{"op":"prune","node_id":"n","weight":1}`, wantErr: ErrUnknownField},
		{name: "prune with a numeric node id", doc: `{"op":"prune","node_id":5}`, wantErr: ErrInvalidField},
		{name: "tilt without weight", doc: `{"op":"tilt","node_id":"n"}`, wantErr: ErrMissingField},
		{name: "tilt with a null weight", doc: `{"op":"tilt","node_id":"n","weight":null}`, wantErr: ErrMissingField},
		{name: "tilt without node id", doc: `{"op":"tilt","weight":1}`, wantErr: ErrMissingField},
		{name: "tilt with a summary", doc: `{"op":"tilt","node_id":"n","weight":1,"summary":"s"}`, wantErr: ErrUnknownField},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var op GoalTreePatchOp
			err := json.Unmarshal([]byte(tt.doc), &op)
			if !errors.Is(err, ErrInvalidPatchOp) || !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v, want ErrInvalidPatchOp and %v", err, tt.wantErr)
			}
		})
	}
}

func TestL1MemoryPatchOpDecodeErrors(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		wantErr error
	}{
		{name: "not an object", doc: `"append"`, wantErr: ErrInvalidField},
		{name: "missing op", doc: `{"value":"v"}`, wantErr: ErrMissingField},
		{name: "unknown op", doc: `{"op":"pop"}`, wantErr: ErrUnknownOp},
		{name: "op of the other family", doc: `{"op":"prune","node_id":"n"}`, wantErr: ErrUnknownOp},
		{name: "append without value", doc: `{"op":"append"}`, wantErr: ErrMissingField},
		{name: "append with an index", doc: `{"op":"append","value":"v","index":0}`, wantErr: ErrUnknownField},
		{name: "append with a numeric value", doc: `{"op":"append","value":1}`, wantErr: ErrInvalidField},
		{name: "insert without index", doc: `{"op":"insert","value":"v"}`, wantErr: ErrMissingField},
		{name: "insert without value", doc: `{"op":"insert","index":0}`, wantErr: ErrMissingField},
		{name: "insert with a negative index", doc: `{"op":"insert","index":-1,"value":"v"}`, wantErr: ErrNegativeIndex},
		{name: "insert with a fractional index", doc: `{"op":"insert","index":0.5,"value":"v"}`, wantErr: ErrInvalidField},
		{name: "insert with a string index", doc: `{"op":"insert","index":"0","value":"v"}`, wantErr: ErrInvalidField},
		{name: "insert with an unknown field", doc: `{"op":"insert","index":0,"value":"v","at":1}`, wantErr: ErrUnknownField},
		{name: "remove without index", doc: `{"op":"remove"}`, wantErr: ErrMissingField},
		{name: "remove with a negative index", doc: `{"op":"remove","index":-3}`, wantErr: ErrNegativeIndex},
		{name: "remove with an index beyond int64", doc: `{"op":"remove","index":9223372036854775808}`, wantErr: ErrInvalidField},
		{name: "remove with a value", doc: `{"op":"remove","index":0,"value":"v"}`, wantErr: ErrUnknownField},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var op L1MemoryPatchOp
			err := json.Unmarshal([]byte(tt.doc), &op)
			if !errors.Is(err, ErrInvalidPatchOp) || !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v, want ErrInvalidPatchOp and %v", err, tt.wantErr)
			}
		})
	}
}

func TestPatchOpEncodeErrors(t *testing.T) {
	tests := []struct {
		name    string
		v       any
		wantErr error
	}{
		{name: "unknown goal op", v: GoalTreePatchOp{Op: "graft", NodeID: "n"}, wantErr: ErrUnknownOp},
		{name: "zero goal op", v: GoalTreePatchOp{}, wantErr: ErrUnknownOp},
		{name: "unknown memory op", v: L1MemoryPatchOp{Op: "pop"}, wantErr: ErrUnknownOp},
		{name: "insert with a negative index", v: InsertOp(-1, "v"), wantErr: ErrNegativeIndex},
		{name: "remove with a negative index", v: RemoveOp(-2), wantErr: ErrNegativeIndex},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := json.Marshal(tt.v)
			if !errors.Is(err, ErrInvalidPatchOp) || !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v, want ErrInvalidPatchOp and %v", err, tt.wantErr)
			}
		})
	}
}

func TestAppendIgnoresIndexWhenEncoding(t *testing.T) {
	if got := mustJSON(t, L1MemoryPatchOp{Op: OpAppend, Index: -5, Value: "v"}); got != `{"op":"append","value":"v"}` {
		t.Errorf("got %s", got)
	}
}
