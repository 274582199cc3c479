package cognition

import (
	"fmt"
	"slices"
)

// Apply applies goalOps and then memOps, each in array order, to a deep copy
// of prev and returns the result; prev is never modified. An op that cannot
// apply is skipped and reported in diags; the remaining ops still apply.
//
// Goal-tree rules: sprout appends a new node to its parent's children and is
// skipped when the node id exists already or the parent is missing; prune
// removes a node with its whole subtree and is skipped for the user root or a
// missing node; tilt sets a node's weight and is skipped for a missing node.
// Sprout and tilt clamp weights to [MinWeight, MaxWeight]; tilting to the
// current weight is no change (and no diagnostic).
//
// L1 memory rules: append always pushes; insert with index > len is skipped,
// index == len appends; remove with index >= len is skipped.
//
// next.Revision is prev.Revision+1 when anything changed, otherwise
// prev.Revision.
func Apply(prev CognitionState, goalOps []GoalTreePatchOp, memOps []L1MemoryPatchOp) (next CognitionState, diags []Diagnostic) {
	next = prev.Clone()
	changed := false
	for i, op := range goalOps {
		c, code, detail := applyGoalOp(&next.GoalTree.UserPartition, op)
		if code != "" {
			diags = append(diags, Diagnostic{Section: SectionGoalTreePatch, Index: i, Op: string(op.Op), Code: code, Detail: detail})
		}
		changed = changed || c
	}
	for i, op := range memOps {
		c, code, detail := applyMemoryOp(&next.L1Memory, op)
		if code != "" {
			diags = append(diags, Diagnostic{Section: SectionL1MemoryPatch, Index: i, Op: string(op.Op), Code: code, Detail: detail})
		}
		changed = changed || c
	}
	if changed {
		next.Revision = prev.Revision + 1
	}
	return next, diags
}

// applyGoalOp applies op to the user partition root. It reports whether the
// tree changed, and a code and detail when the op was skipped.
func applyGoalOp(root *GoalNode, op GoalTreePatchOp) (changed bool, code DiagCode, detail string) {
	if op.NodeID == "" {
		return false, CodeInvalidOp, "empty node_id"
	}
	switch op.Op {
	case OpSprout:
		if root.find(op.NodeID) != nil {
			return false, CodeDuplicateNode, fmt.Sprintf("node %q already exists", op.NodeID)
		}
		parent := root.find(op.ParentNodeID)
		if parent == nil {
			return false, CodeMissingParent, fmt.Sprintf("parent %q of node %q not found", op.ParentNodeID, op.NodeID)
		}
		parent.Children = append(parent.Children, GoalNode{
			NodeID:   op.NodeID,
			Summary:  op.Summary,
			Weight:   clampWeight(op.Weight),
			Children: []GoalNode{},
		})
		return true, "", ""
	case OpPrune:
		if op.NodeID == UserRootID {
			return false, CodePruneUserRoot, "the user partition root cannot be pruned"
		}
		if !root.removeDescendant(op.NodeID) {
			return false, CodeMissingNode, fmt.Sprintf("node %q not found", op.NodeID)
		}
		return true, "", ""
	case OpTilt:
		n := root.find(op.NodeID)
		if n == nil {
			return false, CodeMissingNode, fmt.Sprintf("node %q not found", op.NodeID)
		}
		w := clampWeight(op.Weight)
		if w == n.Weight {
			return false, "", ""
		}
		n.Weight = w
		return true, "", ""
	default:
		return false, CodeInvalidOp, fmt.Sprintf("unknown goal-tree op %q", op.Op)
	}
}

// removeDescendant removes the descendant of n with the given id, subtree
// included, and reports whether it found one.
func (n *GoalNode) removeDescendant(nodeID string) bool {
	for i := range n.Children {
		if n.Children[i].NodeID == nodeID {
			n.Children = slices.Delete(n.Children, i, i+1)
			return true
		}
		if n.Children[i].removeDescendant(nodeID) {
			return true
		}
	}
	return false
}

// applyMemoryOp applies op to m. It reports whether m changed, and a code and
// detail when the op was skipped.
func applyMemoryOp(m *L1Memory, op L1MemoryPatchOp) (changed bool, code DiagCode, detail string) {
	n := len(m.Entries)
	switch op.Op {
	case OpAppend:
		m.Entries = append(m.Entries, op.Value)
		return true, "", ""
	case OpInsert:
		if op.Index < 0 {
			return false, CodeInvalidOp, fmt.Sprintf("negative index %d", op.Index)
		}
		if op.Index > n {
			return false, CodeIndexOutOfRange, fmt.Sprintf("insert index %d > length %d", op.Index, n)
		}
		m.Entries = slices.Insert(m.Entries, op.Index, op.Value)
		return true, "", ""
	case OpRemove:
		if op.Index < 0 {
			return false, CodeInvalidOp, fmt.Sprintf("negative index %d", op.Index)
		}
		if op.Index >= n {
			return false, CodeIndexOutOfRange, fmt.Sprintf("remove index %d >= length %d", op.Index, n)
		}
		m.Entries = slices.Delete(m.Entries, op.Index, op.Index+1)
		return true, "", ""
	default:
		return false, CodeInvalidOp, fmt.Sprintf("unknown l1-memory op %q", op.Op)
	}
}

func clampWeight(w int32) int32 {
	return min(max(w, MinWeight), MaxWeight)
}
