package architect_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/pmstate"
)

// planWithIR is plan1 carrying an output IR.
func planWithIR(t *testing.T, ir string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(plan1), &m); err != nil {
		t.Fatal(err)
	}
	m["output_ir"] = ir
	b, _ := json.Marshal(m)
	return string(b)
}

// Valid output-IR patches are applied to the project's state with CAS,
// after the plan's own goal ops; a skipped op and a broken section are
// diagnostics, not failures.
func TestCortexPatchesApplied(t *testing.T) {
	ir := `<output-ir><acts>[{"act":"flag_risk","args":{"risk":"names with spaces"}},{"act":"add_check","args":{"name":"vet","command":["go","vet","./..."]}},{"act":"declare_create","args":{"path":"greet_test.go"}}]</acts>
<goal-tree-patch>[{"op":"sprout","parent_node_id":"user-root","node_id":"docs","summary":"Document Greet","weight":7},
{"op":"prune","node_id":"no-such-goal"}]</goal-tree-patch>
<l1-memory-patch>[{"op":"append","value":"Greet must handle empty names"}]</l1-memory-patch></output-ir>`
	d := newDeps(t, `{}`, script(t, answer{attempt: 1, step: 0, content: planWithIR(t, ir)}))
	in := contextEvent(t, d, "run-ir", true)
	pd := decodePlan(t, mustHandle(t, handler(t, d), in), "run-ir", 1)
	st, rev := pmState(t, d)
	if _, ok := st.GoalTree.UserPartition.Find(pmstate.RunGoalID("run-ir")); !ok {
		t.Error("the plan's goal is missing")
	}
	docs, ok := st.GoalTree.UserPartition.Find("docs")
	if !ok || docs.Summary != "Document Greet" || docs.Weight != 7 {
		t.Errorf("sprouted goal %+v %v", docs, ok)
	}
	if len(st.L1Memory.Entries) != 1 || st.L1Memory.Entries[0] != "Greet must handle empty names" {
		t.Errorf("L1 memory %v", st.L1Memory.Entries)
	}
	if pd.Run.PMRev != rev || st.Revision != 1 {
		t.Errorf("pm_rev %d, revision %d/%d: the plan and the patches must be one CAS write", pd.Run.PMRev, rev, st.Revision)
	}
	rep := pd.Cortex
	if rep == nil || !rep.Found || rep.GoalOps != 2 || rep.MemoryOps != 1 || len(rep.Acts) != 3 {
		t.Fatalf("cortex report %+v", rep)
	}
	if len(rep.Diagnostics) != 1 || !strings.Contains(rep.Diagnostics[0], "goal-tree-patch[1] prune: missing-node") {
		t.Errorf("diagnostics %v", rep.Diagnostics)
	}
	if len(pd.Plan.Risks) != 2 || pd.Plan.Risks[1] != "names with spaces" {
		t.Errorf("risks %v", pd.Plan.Risks)
	}
	if v := pd.Plan.Verify; len(v) < 2 || v[len(v)-1].Name != "vet" || !slices.Contains(pd.Plan.Creates, "greet_test.go") {
		t.Errorf("acts not carried out: verify %+v creates %v", v, pd.Plan.Creates)
	}
	// A redelivered event applies again without learning twice.
	mustHandle(t, handler(t, d), in)
	if st, _ := pmState(t, d); len(st.L1Memory.Entries) != 1 {
		t.Errorf("L1 memory after redelivery %v", st.L1Memory.Entries)
	}
}

// A broken output IR leaves the project's state as the plan alone makes it.
func TestCortexContractFailureIsANoOp(t *testing.T) {
	ir := `<output-ir><acts>[]</acts><goal-tree-patch>[{"op":"sprout","parent_node_id":"user-root","node_id":"x","summary":"x","weight":1}]</goal-tree-patch></output-ir>`
	d := newDeps(t, `{}`, script(t, answer{attempt: 1, step: 0, content: planWithIR(t, ir)}))
	in := contextEvent(t, d, "run-bad", true)
	pd := decodePlan(t, mustHandle(t, handler(t, d), in), "run-bad", 1)
	st, _ := pmState(t, d)
	if _, ok := st.GoalTree.UserPartition.Find("x"); ok {
		t.Error("a patch from a rejected output IR was applied")
	}
	if pd.Cortex == nil || len(pd.Cortex.Diagnostics) != 1 || !strings.Contains(pd.Cortex.Diagnostics[0], "nothing applied") {
		t.Errorf("cortex report %+v", pd.Cortex)
	}
}

// The plan event records the Cortex state it left; a state too large for
// the event is left out with a diagnostic, and the run goes on.
func TestPlanRecordsTheCortexState(t *testing.T) {
	for _, big := range []bool{false, true} {
		d := newDeps(t, `{"events": {"maxEventBytes": 8192, "artifactThresholdBytes": 1024}}`, script(t, answer{attempt: 1, step: 0, content: plan1}))
		if big {
			_, err := d.PM.Update(testCtx(t), project, func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
				var ops []cognition.L1MemoryPatchOp
				for i := 0; i < 20; i++ {
					ops = append(ops, cognition.AppendOp(fmt.Sprintf("lesson %d: %s", i, strings.Repeat("x", 400))))
				}
				return nil, ops, nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		in := contextEvent(t, d, "run-st", false)
		pd := decodePlan(t, mustHandle(t, handler(t, d), in), "run-st", 1)
		st, _ := pmState(t, d)
		diags := strings.Join(pd.Cortex.Diagnostics, "\n")
		if big {
			if pd.Cortex.State != nil || !strings.Contains(diags, "cortex state left out") {
				t.Errorf("big state: recorded %v, diagnostics %s", pd.Cortex.State != nil, diags)
			}
			continue
		}
		if pd.Cortex.State == nil || !reflect.DeepEqual(*pd.Cortex.State, st) {
			t.Errorf("recorded state %+v, project state %+v", pd.Cortex.State, st)
		}
		if _, ok := pd.Cortex.State.GoalTree.UserPartition.Find(pmstate.RunGoalID("run-st")); !ok {
			t.Error("the recorded state lacks the plan's goal")
		}
	}
}
