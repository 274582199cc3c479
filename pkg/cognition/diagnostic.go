package cognition

import "fmt"

// DiagCode says why an op or a helper section was skipped.
type DiagCode string

// Diagnostic codes.
const (
	// CodeDuplicateNode: sprout of a node id that already exists.
	CodeDuplicateNode DiagCode = "duplicate-node"
	// CodeMissingParent: sprout under a parent that does not exist.
	CodeMissingParent DiagCode = "missing-parent"
	// CodeMissingNode: prune or tilt of a node that does not exist.
	CodeMissingNode DiagCode = "missing-node"
	// CodePruneUserRoot: prune of the user partition root.
	CodePruneUserRoot DiagCode = "prune-user-root"
	// CodeIndexOutOfRange: insert past the end or remove at or past the end
	// of the L1 memory.
	CodeIndexOutOfRange DiagCode = "index-out-of-range"
	// CodeInvalidOp: an op built in Go that no decoder would produce (unknown
	// kind, empty node id, negative index).
	CodeInvalidOp DiagCode = "invalid-op"
	// CodeInvalidHelperOutput: an output IR section whose body is not a valid
	// JSON array of its helper's type; the section was replaced by an empty
	// array.
	CodeInvalidHelperOutput DiagCode = "invalid-helper-output"
)

// Section names a part of the output IR a diagnostic is about. The values are
// the output IR tag names.
type Section string

// Output IR sections.
const (
	SectionActs          Section = "acts"
	SectionGoalTreePatch Section = "goal-tree-patch"
	SectionL1MemoryPatch Section = "l1-memory-patch"
)

// Diagnostic reports one skipped op (from Apply) or one discarded helper
// section (from ParseOutputIR). Index is the op's position in its array, or
// -1 when the whole section is meant. Op is the op kind, empty for sections.
type Diagnostic struct {
	Section Section  `json:"section"`
	Index   int      `json:"index"`
	Op      string   `json:"op,omitempty"`
	Code    DiagCode `json:"code"`
	Detail  string   `json:"detail"`
}

// String renders d on one line for logs.
func (d Diagnostic) String() string {
	if d.Index < 0 {
		return fmt.Sprintf("%s: %s: %s", d.Section, d.Code, d.Detail)
	}
	return fmt.Sprintf("%s[%d] %s: %s: %s", d.Section, d.Index, d.Op, d.Code, d.Detail)
}
