package cognition

import (
	"encoding/json"
	"fmt"
)

// Wire shapes: only the fields of the selected op are written.
type (
	sproutWire struct {
		Op           GoalOpKind `json:"op"`
		ParentNodeID string     `json:"parent_node_id"`
		NodeID       string     `json:"node_id"`
		Summary      string     `json:"summary"`
		Weight       int32      `json:"weight"`
	}
	pruneWire struct {
		Op     GoalOpKind `json:"op"`
		NodeID string     `json:"node_id"`
	}
	tiltWire struct {
		Op     GoalOpKind `json:"op"`
		NodeID string     `json:"node_id"`
		Weight int32      `json:"weight"`
	}
	appendWire struct {
		Op    MemoryOpKind `json:"op"`
		Value string       `json:"value"`
	}
	insertWire struct {
		Op    MemoryOpKind `json:"op"`
		Index int          `json:"index"`
		Value string       `json:"value"`
	}
	removeWire struct {
		Op    MemoryOpKind `json:"op"`
		Index int          `json:"index"`
	}
)

// MarshalJSON writes the tagged shape of op. An unknown Op fails with
// ErrUnknownOp and a negative index with ErrNegativeIndex, both joined with
// ErrInvalidPatchOp.
func (op GoalTreePatchOp) MarshalJSON() ([]byte, error) {
	switch op.Op {
	case OpSprout:
		return json.Marshal(sproutWire(op))
	case OpPrune:
		return json.Marshal(pruneWire{op.Op, op.NodeID})
	case OpTilt:
		return json.Marshal(tiltWire{op.Op, op.NodeID, op.Weight})
	default:
		return nil, fmt.Errorf("%w: %w: %q", ErrInvalidPatchOp, ErrUnknownOp, op.Op)
	}
}

// UnmarshalJSON decodes a tagged goal-tree op strictly: the "op" tag must be
// known (ErrUnknownOp), every field of that op is required (ErrMissingField),
// no other field is allowed (ErrUnknownField), field types must match and
// node ids must be non-empty (ErrInvalidField). Every error also wraps
// ErrInvalidPatchOp.
func (op *GoalTreePatchOp) UnmarshalJSON(data []byte) error {
	out, err := decodeGoalOp(data)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidPatchOp, err)
	}
	*op = out
	return nil
}

func decodeGoalOp(data []byte) (GoalTreePatchOp, error) {
	f, err := decodeObject(data)
	if err != nil {
		return GoalTreePatchOp{}, err
	}
	kind, err := f.str("op")
	if err != nil {
		return GoalTreePatchOp{}, err
	}
	out := GoalTreePatchOp{Op: GoalOpKind(kind)}
	switch out.Op {
	case OpSprout:
		if err := f.onlyAllowed("op", "parent_node_id", "node_id", "summary", "weight"); err != nil {
			return GoalTreePatchOp{}, err
		}
		if out.ParentNodeID, err = f.id("parent_node_id"); err != nil {
			return GoalTreePatchOp{}, err
		}
		if out.NodeID, err = f.id("node_id"); err != nil {
			return GoalTreePatchOp{}, err
		}
		if out.Summary, err = f.str("summary"); err != nil {
			return GoalTreePatchOp{}, err
		}
		if out.Weight, err = f.int32("weight"); err != nil {
			return GoalTreePatchOp{}, err
		}
	case OpPrune:
		if err := f.onlyAllowed("op", "node_id"); err != nil {
			return GoalTreePatchOp{}, err
		}
		if out.NodeID, err = f.id("node_id"); err != nil {
			return GoalTreePatchOp{}, err
		}
	case OpTilt:
		if err := f.onlyAllowed("op", "node_id", "weight"); err != nil {
			return GoalTreePatchOp{}, err
		}
		if out.NodeID, err = f.id("node_id"); err != nil {
			return GoalTreePatchOp{}, err
		}
		if out.Weight, err = f.int32("weight"); err != nil {
			return GoalTreePatchOp{}, err
		}
	default:
		return GoalTreePatchOp{}, fmt.Errorf("%w: %q", ErrUnknownOp, kind)
	}
	return out, nil
}

// MarshalJSON writes the tagged shape of op. An unknown Op fails with
// ErrUnknownOp and a negative Index with ErrNegativeIndex, both joined with
// ErrInvalidPatchOp.
func (op L1MemoryPatchOp) MarshalJSON() ([]byte, error) {
	if op.Index < 0 && (op.Op == OpInsert || op.Op == OpRemove) {
		return nil, fmt.Errorf("%w: %w: %d", ErrInvalidPatchOp, ErrNegativeIndex, op.Index)
	}
	switch op.Op {
	case OpAppend:
		return json.Marshal(appendWire{op.Op, op.Value})
	case OpInsert:
		return json.Marshal(insertWire(op))
	case OpRemove:
		return json.Marshal(removeWire{op.Op, op.Index})
	default:
		return nil, fmt.Errorf("%w: %w: %q", ErrInvalidPatchOp, ErrUnknownOp, op.Op)
	}
}

// UnmarshalJSON decodes a tagged L1 memory op strictly: the "op" tag must be
// known (ErrUnknownOp), every field of that op is required (ErrMissingField),
// no other field is allowed (ErrUnknownField), field types must match
// (ErrInvalidField) and an index must not be negative (ErrNegativeIndex).
// Every error also wraps ErrInvalidPatchOp.
func (op *L1MemoryPatchOp) UnmarshalJSON(data []byte) error {
	out, err := decodeMemoryOp(data)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidPatchOp, err)
	}
	*op = out
	return nil
}

func decodeMemoryOp(data []byte) (L1MemoryPatchOp, error) {
	f, err := decodeObject(data)
	if err != nil {
		return L1MemoryPatchOp{}, err
	}
	kind, err := f.str("op")
	if err != nil {
		return L1MemoryPatchOp{}, err
	}
	out := L1MemoryPatchOp{Op: MemoryOpKind(kind)}
	switch out.Op {
	case OpAppend:
		if err := f.onlyAllowed("op", "value"); err != nil {
			return L1MemoryPatchOp{}, err
		}
		if out.Value, err = f.str("value"); err != nil {
			return L1MemoryPatchOp{}, err
		}
	case OpInsert:
		if err := f.onlyAllowed("op", "index", "value"); err != nil {
			return L1MemoryPatchOp{}, err
		}
		if out.Index, err = f.index("index"); err != nil {
			return L1MemoryPatchOp{}, err
		}
		if out.Value, err = f.str("value"); err != nil {
			return L1MemoryPatchOp{}, err
		}
	case OpRemove:
		if err := f.onlyAllowed("op", "index"); err != nil {
			return L1MemoryPatchOp{}, err
		}
		if out.Index, err = f.index("index"); err != nil {
			return L1MemoryPatchOp{}, err
		}
	default:
		return L1MemoryPatchOp{}, fmt.Errorf("%w: %q", ErrUnknownOp, kind)
	}
	return out, nil
}
