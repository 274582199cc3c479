package cognition

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Output IR wrapper tags.
const (
	outputOpen  = "<output-ir>"
	outputClose = "</output-ir>"
)

// OutputIR is the parsed primary model output: the act drafts and the two
// patches, plus Diagnostics for helper sections that were discarded. Empty
// sections are nil slices.
type OutputIR struct {
	Acts          []ActDraft
	GoalTreePatch []GoalTreePatchOp
	L1MemoryPatch []L1MemoryPatchOp
	Diagnostics   []Diagnostic
}

// RenderOutputIR renders o in the output IR format that ParseOutputIR reads:
//
//	<output-ir>
//	<acts>
//	[…ActDraft…]
//	</acts>
//	<goal-tree-patch>
//	[…GoalTreePatchOp…]
//	</goal-tree-patch>
//	<l1-memory-patch>
//	[…L1MemoryPatchOp…]
//	</l1-memory-patch>
//	</output-ir>
//
// Each body is a JSON array indented by two spaces; nil renders as []. The
// Diagnostics field is not rendered. An op or act that cannot be encoded (see
// their MarshalJSON methods) makes it fail with an error wrapping the op's
// sentinel.
func RenderOutputIR(o OutputIR) (string, error) {
	acts, err := indentArray(o.Acts)
	if err != nil {
		return "", fmt.Errorf("could not render <%s>: %w", SectionActs, err)
	}
	goal, err := indentArray(o.GoalTreePatch)
	if err != nil {
		return "", fmt.Errorf("could not render <%s>: %w", SectionGoalTreePatch, err)
	}
	mem, err := indentArray(o.L1MemoryPatch)
	if err != nil {
		return "", fmt.Errorf("could not render <%s>: %w", SectionL1MemoryPatch, err)
	}
	var b strings.Builder
	b.WriteString(outputOpen + "\n")
	writeSection(&b, string(SectionActs), acts)
	writeSection(&b, string(SectionGoalTreePatch), goal)
	writeSection(&b, string(SectionL1MemoryPatch), mem)
	b.WriteString(outputClose + "\n")
	return b.String(), nil
}

// indentArray encodes items as an indented JSON array, [] for none.
func indentArray[T any](items []T) (string, error) {
	if len(items) == 0 {
		return "[]", nil
	}
	data, err := json.MarshalIndent(items, "", "  ")
	if err != nil {
		return "", err
	}
	return string(data), nil
}
