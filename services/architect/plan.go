package architect

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/pmstate"
)

// ParsePlan extracts and validates the plan JSON of a model answer. Steps
// without an id are numbered s1, s2, ….
func ParsePlan(answer string) (events.Plan, error) {
	raw, err := llm.ExtractJSON(answer)
	if err != nil {
		return events.Plan{}, err
	}
	var p events.Plan
	if err := json.Unmarshal(raw, &p); err != nil {
		return events.Plan{}, fmt.Errorf("plan JSON: %w", err)
	}
	for i := range p.Steps {
		if p.Steps[i].ID == "" {
			p.Steps[i].ID = "s" + strconv.Itoa(i+1)
		}
	}
	if err := p.Validate(); err != nil {
		return events.Plan{}, err
	}
	return p, nil
}

// GoalOps returns the goal-tree patch that records a plan: the run's goal
// under the user root (replaced on a retry, with its weight tilted up by
// attempt so a struggling run gets attention), and one child per step,
// weighted by order.
func GoalOps(cur cognition.CognitionState, runID string, attempt int, plan events.Plan) []cognition.GoalTreePatchOp {
	id := pmstate.RunGoalID(runID)
	var ops []cognition.GoalTreePatchOp
	if _, ok := cur.GoalTree.UserPartition.Find(id); ok {
		ops = append(ops, cognition.PruneOp(id))
	}
	summary := plan.Summary
	if summary == "" {
		summary = "run " + runID
	}
	ops = append(ops, cognition.SproutOp(cognition.UserRootID, id, summary, 0))
	for i, st := range plan.Steps {
		ops = append(ops, cognition.SproutOp(id, id+"-"+st.ID, st.Description, int32(len(plan.Steps)-i)))
	}
	ops = append(ops, cognition.TiltOp(id, int32(100*attempt)))
	return ops
}
