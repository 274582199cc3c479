package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
)

// rerunDecider gives a rerun's parked calls the decisions the recorded run
// took on them: the same model answers park the same calls, under the
// same ids. A call the recorded run never had decided cannot be decided
// by a rerun: it is an error, not a wait for the timeout.
type rerunDecider struct {
	cl       *client
	recorded []audit.Approval
	sent     map[string]bool
}

func newRerunDecider(cl *client, recorded []audit.Approval) *rerunDecider {
	return &rerunDecider{cl: cl, recorded: recorded, sent: map[string]bool{}}
}

// decide publishes the recorded decision of each call the rerun (run
// runID, state st) waits on, once.
func (r *rerunDecider) decide(ctx context.Context, runID string, st *audit.State) error {
	for _, p := range st.Pending() {
		key := fmt.Sprintf("%d/%s", p.Attempt, p.Call)
		if r.sent[key] {
			continue
		}
		var d *audit.Decision
		for _, a := range r.recorded {
			if a.Call == p.Call && a.Attempt == p.Attempt && a.Decision != nil {
				d = a.Decision
			}
		}
		if d == nil {
			return fmt.Errorf("the rerun parked for approval on call %s (attempt %d: %s %s), which the recorded run had no decision on",
				p.Call, p.Attempt, p.Tool, strings.Join(p.Targets, " "))
		}
		at, _ := time.Parse(time.RFC3339, d.At) // the history's own format
		env, err := events.NewKeyed(runID, events.KindApprovalDecided, p.Attempt, p.Call, "codali/rerun", time.Now(),
			events.ApprovalDecidedData{Call: p.Call, Decision: d.Decision, By: d.By, At: at, Note: d.Note, EditedArgs: d.EditedArgs, Extend: d.Extend})
		if err != nil {
			return fmt.Errorf("the recorded decision on call %s cannot be replayed: %w", p.Call, err)
		}
		if err := publishEvent(ctx, r.cl, env); err != nil {
			return fmt.Errorf("could not replay the recorded decision on call %s: %w", p.Call, err)
		}
		r.sent[key] = true
	}
	return nil
}
