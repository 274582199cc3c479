package cognition

import (
	"encoding/json"
	"strconv"
	"testing"
)

// node builds a goal node for tests.
func node(id string, weight int32, children ...GoalNode) GoalNode {
	if children == nil {
		children = []GoalNode{}
	}
	return GoalNode{NodeID: id, Summary: id + " summary", Weight: weight, Children: children}
}

// stateWith returns the default state with the given user-root children,
// memory entries and revision.
func stateWith(rev uint64, entries []string, children ...GoalNode) CognitionState {
	s := NewState()
	s.Revision = rev
	if children != nil {
		s.GoalTree.UserPartition.Children = children
	}
	if entries != nil {
		s.L1Memory.Entries = entries
	}
	return s
}

// mustJSON encodes v or fails the test.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return string(data)
}

// diagCodes extracts "section[index]:code" strings for compact comparisons.
func diagCodes(diags []Diagnostic) []string {
	out := make([]string, 0, len(diags))
	for _, d := range diags {
		out = append(out, string(d.Section)+"["+strconv.Itoa(d.Index)+"]:"+string(d.Code))
	}
	return out
}
