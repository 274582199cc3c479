package architect

import (
	"encoding/json"
	"fmt"

	"github.com/codali-dev/codali/pkg/events"
)

// forkedPlan is the plan a forked run was started with (the plan recorded
// at the parent's event), for its first attempt: the run re-builds it
// instead of planning again. Later attempts plan as usual.
func forkedPlan(run events.Run, attempt int) (events.Plan, events.Spend, bool, error) {
	f := run.Request.Options.Fork
	if f == nil || f.Plan == nil || attempt != 1 {
		return events.Plan{}, events.Spend{}, false, nil
	}
	raw, err := json.Marshal(f.Plan)
	if err != nil {
		return events.Plan{}, events.Spend{}, false, err
	}
	plan, err := ParsePlan(string(raw))
	if err != nil {
		return events.Plan{}, events.Spend{}, false, fmt.Errorf("the plan of the fork of %s at %s is not valid: %w", f.Run, f.Event, err)
	}
	return plan, events.Spend{}, true, nil
}
