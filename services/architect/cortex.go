package architect

import (
	"encoding/json"
	"strings"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
)

// cortexInstructions tells the model how to answer with output IR.
const cortexInstructions = `Project cognition (Cortex input IR) follows. You may ask for acts and change the project's goal tree (user partition) and L1 memory: add a string field "output_ir" to your JSON answer holding
<output-ir>
<acts>[{"act": name, "args": {...}}]</acts>
<goal-tree-patch>[{"op": "sprout", "parent_node_id", "node_id", "summary", "weight"} | {"op": "prune", "node_id"} | {"op": "tilt", "node_id", "weight"}]</goal-tree-patch>
<l1-memory-patch>[{"op": "append", "value"} | {"op": "insert", "index", "value"} | {"op": "remove", "index"}]</l1-memory-patch>
</output-ir>
All three sections are required (use [] for none). Leave output_ir out to change nothing.`

// cortexMessage is the Cortex input IR for the model: senses (the request
// and, on a retry, why the last attempt failed), the act catalog, the goal
// tree and L1 memory.
func cortexMessage(inp input, st cognition.CognitionState) llm.Message {
	senses := "request: " + inp.run.Request.Request
	if r := inp.retry; r != nil {
		senses += "\nprevious attempt failed: " + r.Reason
	}
	return llm.Message{Role: "user", Content: cortexInstructions + "\n\n" + cognition.RenderInputIR(senses, actCatalog(), st)}
}

// cortexOutput finds the output IR of an answer, in an "output_ir" string
// field of its JSON or as an <output-ir> block in its text, and parses it
// with the spec's rules. A missing or broken output IR is a no-op: an
// empty OutputIR and a diagnostic.
func cortexOutput(answer string) (cognition.OutputIR, *events.CortexReport) {
	rep := &events.CortexReport{}
	text := ""
	if raw, err := llm.ExtractJSON(answer); err == nil {
		var a struct {
			OutputIR string `json:"output_ir"`
		}
		if json.Unmarshal(raw, &a) == nil {
			text = a.OutputIR
		}
	}
	if strings.TrimSpace(text) == "" {
		if i, j := strings.Index(answer, "<output-ir>"), strings.LastIndex(answer, "</output-ir>"); i >= 0 && j > i {
			text = answer[i : j+len("</output-ir>")]
		}
	}
	if strings.TrimSpace(text) == "" {
		rep.Diagnostics = append(rep.Diagnostics, "no output IR in the answer: project cognition unchanged")
		return cognition.OutputIR{}, rep
	}
	rep.Found = true
	out, err := cognition.ParseOutputIR(text)
	if err != nil {
		rep.Diagnostics = append(rep.Diagnostics, "output IR rejected, nothing applied: "+err.Error())
		return cognition.OutputIR{}, rep
	}
	for _, d := range out.Diagnostics {
		rep.Diagnostics = append(rep.Diagnostics, d.String())
	}
	rep.GoalOps, rep.MemoryOps = len(out.GoalTreePatch), len(out.L1MemoryPatch)
	return out, rep
}

// cortexOps are the model's patch ops to apply after the plan's own goal
// ops. An append of a value memory already holds is dropped, so a
// redelivered event does not learn twice.
func cortexOps(cur cognition.CognitionState, out cognition.OutputIR) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp) {
	var mem []cognition.L1MemoryPatchOp
	for _, op := range out.L1MemoryPatch {
		if op.Op == cognition.OpAppend && containsString(cur.L1Memory.Entries, op.Value) {
			continue
		}
		mem = append(mem, op)
	}
	return out.GoalTreePatch, mem
}

// cortexDiagnostics reports the skipped ops that were the model's (goal
// ops after the plan's first nPlan, and every memory op), renumbered to
// the model's own positions.
func cortexDiagnostics(diags []cognition.Diagnostic, nPlan int, rep *events.CortexReport) {
	for _, d := range diags {
		if d.Section == cognition.SectionGoalTreePatch {
			if d.Index < nPlan {
				continue
			}
			d.Index -= nPlan
		}
		rep.Diagnostics = append(rep.Diagnostics, "skipped: "+d.String())
	}
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
