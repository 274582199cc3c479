package cognition

// GoalOpKind tags a goal-tree patch op.
type GoalOpKind string

// Goal-tree op kinds, as written in the "op" JSON field.
const (
	OpSprout GoalOpKind = "sprout"
	OpPrune  GoalOpKind = "prune"
	OpTilt   GoalOpKind = "tilt"
)

// GoalTreePatchOp is one goal-tree patch operation. Op selects which fields
// matter:
//
//	sprout: {"op":"sprout","parent_node_id","node_id","summary","weight"}
//	prune:  {"op":"prune","node_id"}
//	tilt:   {"op":"tilt","node_id","weight"}
//
// Fields that do not belong to Op are ignored when encoding. Build values with
// SproutOp, PruneOp and TiltOp.
type GoalTreePatchOp struct {
	Op           GoalOpKind
	ParentNodeID string
	NodeID       string
	Summary      string
	Weight       int32
}

// SproutOp returns an op adding node nodeID under parentID.
func SproutOp(parentID, nodeID, summary string, weight int32) GoalTreePatchOp {
	return GoalTreePatchOp{Op: OpSprout, ParentNodeID: parentID, NodeID: nodeID, Summary: summary, Weight: weight}
}

// PruneOp returns an op removing node nodeID and its whole subtree.
func PruneOp(nodeID string) GoalTreePatchOp {
	return GoalTreePatchOp{Op: OpPrune, NodeID: nodeID}
}

// TiltOp returns an op setting the weight of node nodeID.
func TiltOp(nodeID string, weight int32) GoalTreePatchOp {
	return GoalTreePatchOp{Op: OpTilt, NodeID: nodeID, Weight: weight}
}

// MemoryOpKind tags an L1 memory patch op.
type MemoryOpKind string

// L1 memory op kinds, as written in the "op" JSON field.
const (
	OpAppend MemoryOpKind = "append"
	OpInsert MemoryOpKind = "insert"
	OpRemove MemoryOpKind = "remove"
)

// L1MemoryPatchOp is one L1 memory patch operation. Op selects which fields
// matter:
//
//	append: {"op":"append","value"}
//	insert: {"op":"insert","index","value"}
//	remove: {"op":"remove","index"}
//
// Index is never negative in a decoded op. Build values with AppendOp,
// InsertOp and RemoveOp.
type L1MemoryPatchOp struct {
	Op    MemoryOpKind
	Index int
	Value string
}

// AppendOp returns an op pushing value at the end of the memory.
func AppendOp(value string) L1MemoryPatchOp {
	return L1MemoryPatchOp{Op: OpAppend, Value: value}
}

// InsertOp returns an op inserting value before position index.
func InsertOp(index int, value string) L1MemoryPatchOp {
	return L1MemoryPatchOp{Op: OpInsert, Index: index, Value: value}
}

// RemoveOp returns an op removing the entry at position index.
func RemoveOp(index int) L1MemoryPatchOp {
	return L1MemoryPatchOp{Op: OpRemove, Index: index}
}
