package cognition

import (
	"encoding/json"
	"fmt"
)

// MarshalJSON encodes n with snake_case keys; a nil child list is encoded as
// an empty array.
func (n GoalNode) MarshalJSON() ([]byte, error) {
	return json.Marshal(wireNode(n))
}

// goalNodeJSON is a GoalNode as it is encoded, without a MarshalJSON method:
// a tree of them is written by one json.Marshal, where a GoalNode's own
// method would marshal each subtree separately and have encoding/json
// check and compact it again at every level above it.
type goalNodeJSON struct {
	NodeID   string         `json:"node_id"`
	Summary  string         `json:"summary"`
	Weight   int32          `json:"weight"`
	Children []goalNodeJSON `json:"children"`
}

// wireNode converts n's subtree; every child list is non-nil (a nil one
// is encoded as an empty array).
func wireNode(n GoalNode) goalNodeJSON {
	out := goalNodeJSON{NodeID: n.NodeID, Summary: n.Summary, Weight: n.Weight, Children: []goalNodeJSON{}}
	if len(n.Children) > 0 {
		out.Children = make([]goalNodeJSON, len(n.Children))
		for i, c := range n.Children {
			out.Children[i] = wireNode(c)
		}
	}
	return out
}

// UnmarshalJSON decodes a goal node. node_id, summary and weight are required
// (ErrMissingField); children may be absent or null. Unknown keys are ignored
// so that newer writers stay readable.
func (n *GoalNode) UnmarshalJSON(data []byte) error {
	if out, ok := decodeFast(data, nodeIn.node); ok {
		*n = out
		return nil
	}
	return n.unmarshalMembers(data)
}

// unmarshalMembers is UnmarshalJSON reading the object member by member.
func (n *GoalNode) unmarshalMembers(data []byte) error {
	f, err := decodeObject(data)
	if err != nil {
		return err
	}
	var out GoalNode
	if out.NodeID, err = f.str("node_id"); err != nil {
		return err
	}
	if out.Summary, err = f.str("summary"); err != nil {
		return err
	}
	if out.Weight, err = f.int32("weight"); err != nil {
		return err
	}
	if err := f.into("children", &out.Children); err != nil {
		return err
	}
	*n = out
	return nil
}

// MarshalJSON encodes t; a nil root partition is encoded as an empty array.
func (t GoalTree) MarshalJSON() ([]byte, error) {
	p := struct {
		RootPartition []string     `json:"root_partition"`
		UserPartition goalNodeJSON `json:"user_partition"`
	}{t.RootPartition, wireNode(t.UserPartition)}
	if p.RootPartition == nil {
		p.RootPartition = []string{}
	}
	return json.Marshal(p)
}

// UnmarshalJSON decodes a goal tree. user_partition is required
// (ErrMissingField); root_partition is optional because DecodeState rebuilds
// it from the constants anyway.
func (t *GoalTree) UnmarshalJSON(data []byte) error {
	if out, ok := decodeFast(data, treeIn.tree); ok {
		*t = out
		return nil
	}
	return t.unmarshalMembers(data)
}

// unmarshalMembers is UnmarshalJSON reading the object member by member.
func (t *GoalTree) unmarshalMembers(data []byte) error {
	f, err := decodeObject(data)
	if err != nil {
		return err
	}
	var out GoalTree
	raw, err := f.raw("user_partition")
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &out.UserPartition); err != nil {
		return fmt.Errorf("could not decode user_partition: %w", err)
	}
	if err := f.into("root_partition", &out.RootPartition); err != nil {
		return err
	}
	*t = out
	return nil
}

// MarshalJSON encodes m; nil entries are encoded as an empty array.
func (m L1Memory) MarshalJSON() ([]byte, error) {
	type plain L1Memory
	p := plain(m)
	if p.Entries == nil {
		p.Entries = []string{}
	}
	return json.Marshal(p)
}

// UnmarshalJSON decodes an L1 memory; entries may be absent or null (empty).
func (m *L1Memory) UnmarshalJSON(data []byte) error {
	f, err := decodeObject(data)
	if err != nil {
		return err
	}
	var out L1Memory
	if err := f.into("entries", &out.Entries); err != nil {
		return err
	}
	*m = out
	return nil
}

// UnmarshalJSON decodes a cognition state; revision, goal_tree and l1_memory
// are required (ErrMissingField). It does not validate: use DecodeState for
// persisted data.
func (s *CognitionState) UnmarshalJSON(data []byte) error {
	if out, ok := decodeFast(data, stateIn.state); ok {
		*s = out
		return nil
	}
	return s.unmarshalMembers(data)
}

// unmarshalMembers is UnmarshalJSON reading the object member by member.
func (s *CognitionState) unmarshalMembers(data []byte) error {
	f, err := decodeObject(data)
	if err != nil {
		return err
	}
	var out CognitionState
	if out.Revision, err = f.uint64("revision"); err != nil {
		return err
	}
	raw, err := f.raw("goal_tree")
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &out.GoalTree); err != nil {
		return fmt.Errorf("could not decode goal_tree: %w", err)
	}
	if raw, err = f.raw("l1_memory"); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &out.L1Memory); err != nil {
		return fmt.Errorf("could not decode l1_memory: %w", err)
	}
	*s = out
	return nil
}

// DecodeState decodes a persisted cognition state, rebuilds its root
// partition from the constants and validates it. Any failure wraps
// ErrInvalidState.
func DecodeState(data []byte) (CognitionState, error) {
	var s CognitionState
	if err := json.Unmarshal(data, &s); err != nil {
		return CognitionState{}, fmt.Errorf("%w: could not decode: %w", ErrInvalidState, err)
	}
	s.GoalTree.RootPartition = RootPartition()
	if s.L1Memory.Entries == nil {
		s.L1Memory.Entries = []string{}
	}
	if err := Validate(s); err != nil {
		return CognitionState{}, err
	}
	return s, nil
}

// EncodeState validates s and encodes it as JSON for persistence. A state
// that fails Validate is not encoded; the error wraps ErrInvalidState.
func EncodeState(s CognitionState) ([]byte, error) {
	if err := Validate(s); err != nil {
		return nil, err
	}
	data, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("could not encode cognition state: %w", err)
	}
	return data, nil
}
