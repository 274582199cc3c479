package cognition

import (
	"fmt"
	"testing"
)

// benchState builds a state with 100 goals in two levels and 50 memory
// entries.
func benchState(b *testing.B) CognitionState {
	b.Helper()
	return benchStateOf()
}

// benchStateOf is benchState's state.
func benchStateOf() CognitionState {
	s := NewState()
	for i := range 10 {
		parent := node(fmt.Sprintf("g%d", i), int32(i))
		for j := range 9 {
			parent.Children = append(parent.Children, node(fmt.Sprintf("g%d-%d", i, j), int32(j)))
		}
		s.GoalTree.UserPartition.Children = append(s.GoalTree.UserPartition.Children, parent)
	}
	for i := range 50 {
		s.L1Memory.Entries = append(s.L1Memory.Entries, fmt.Sprintf("memory entry %d", i))
	}
	return s
}

func BenchmarkApply(b *testing.B) {
	s := benchState(b)
	goalOps := []GoalTreePatchOp{SproutOp("g5-3", "new", "new goal", 1), TiltOp("g9-8", 40), PruneOp("g2")}
	memOps := []L1MemoryPatchOp{AppendOp("x"), InsertOp(10, "y"), RemoveOp(0)}
	for b.Loop() {
		Apply(s, goalOps, memOps)
	}
}

func BenchmarkParseOutputIR(b *testing.B) {
	text, err := RenderOutputIR(OutputIR{
		Acts:          []ActDraft{{Act: "read_file", Args: []byte(`{"path":"main.go"}`)}, {Act: "noop"}},
		GoalTreePatch: []GoalTreePatchOp{SproutOp(UserRootID, "a", "a", 1), TiltOp("a", 2)},
		L1MemoryPatch: []L1MemoryPatchOp{AppendOp("m"), RemoveOp(0)},
	})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := ParseOutputIR(text); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderInputIR(b *testing.B) {
	s := benchState(b)
	for b.Loop() {
		RenderInputIR("user: hello", "- read_file(path)", s)
	}
}

func BenchmarkEncodeState(b *testing.B) {
	s := benchState(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeState(s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeState(b *testing.B) {
	data, err := EncodeState(benchState(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeState(data); err != nil {
			b.Fatal(err)
		}
	}
}
