package cognition

import (
	"errors"
	"reflect"
	"testing"
)

// FuzzParseOutputIR: the output-IR parser never panics, a failure is
// always a contract failure, and what it accepts renders to text it parses
// back to the same acts and patches.
func FuzzParseOutputIR(f *testing.F) {
	f.Add("<output-ir>\n<acts>\n[]\n</acts>\n<goal-tree-patch>\n[]\n</goal-tree-patch>\n<l1-memory-patch>\n[]\n</l1-memory-patch>\n</output-ir>")
	f.Add("<output-ir><acts>```json\n[{\"act\":\"x\"}]\n```</acts><goal-tree-patch></goal-tree-patch><l1-memory-patch>[{\"op\":\"append\",\"value\":\"v\"}]</l1-memory-patch></output-ir>")
	f.Add("<output-ir><acts></acts></output-ir>")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		out, err := ParseOutputIR(text)
		if err != nil {
			if !errors.Is(err, ErrContractFailure) {
				t.Fatalf("error %v does not wrap ErrContractFailure", err)
			}
			return
		}
		rendered, err := RenderOutputIR(out)
		if err != nil {
			return // parsed content the renderer refuses (e.g. invalid ops) is not a round-trip case
		}
		back, err := ParseOutputIR(rendered)
		if err != nil {
			t.Fatalf("rendered output does not parse: %v\n%s", err, rendered)
		}
		if !reflect.DeepEqual(out.Acts, back.Acts) || !reflect.DeepEqual(out.GoalTreePatch, back.GoalTreePatch) ||
			!reflect.DeepEqual(out.L1MemoryPatch, back.L1MemoryPatch) {
			t.Fatalf("round trip changed the IR:\n%+v\n%+v", out, back)
		}
	})
}
