package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/pmstate"
	"github.com/codali-dev/codali/pkg/rao"
)

// correct records an explicit user correction of a run (spec §6): the
// note, redacted, becomes a repository lesson in the run's project memory
// (which later bundles carry to the architect and the builder), and the
// run's history gets an override event saying so. Works on running and
// ended runs.
func (e *raoEnv) correct(ctx context.Context, pos []string, note, by string) int {
	if len(pos) != 1 || strings.TrimSpace(note) == "" {
		e.c.errorf("rao correct: usage: codali rao correct RUN --note TEXT [--by NAME]")
		return exitUsage
	}
	runID := pos[0]
	_, evs, err := e.history(ctx, runID)
	if err != nil {
		e.c.errorf("rao correct: %v", err)
		return failCode(err)
	}
	raw, err := rao.Replay(evs, 0)
	if err != nil {
		e.c.errorf("rao correct: %v", err)
		return failCode(err)
	}
	st, err := audit.DecodeState(runID, raw)
	if err != nil {
		e.c.errorf("rao correct: %v", err)
		return failCode(err)
	}
	if st.Project == "" {
		e.c.errorf("rao correct: run %s has no project yet (the librarian has not seen it)", runID)
		return exitFailure
	}
	note = e.redactor.String(strings.Join(strings.Fields(note), " "))
	intent := ""
	if st.Request != nil {
		intent = short(st.Request.Request, 80) + ": "
	}
	lesson := fmt.Sprintf("%scorrection by %s: %s", intent, orDash(by), note)
	kv, err := e.cl.js.KeyValue(ctx, events.BucketPMState)
	if err != nil {
		e.c.errorf("rao correct: could not open bucket %s: %v", events.BucketPMState, err)
		return exitFailure
	}
	// Read through the leader, as the services read it: a lesson already
	// stored is not written again, a decision no compare-and-set checks.
	pm, err := pmstate.New(bus.LeaderReads(e.cl.js, kv), pmstate.WithMaxL1Entries(e.cfg.Memory.MaxL1Entries))
	if err != nil {
		e.c.errorf("rao correct: %v", err)
		return exitFailure
	}
	res, err := pm.Update(ctx, st.Project, func(cur cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		for _, l := range cur.L1Memory.Entries {
			if l == lesson {
				return nil, nil, nil
			}
		}
		return nil, []cognition.L1MemoryPatchOp{cognition.AppendOp(lesson)}, nil
	})
	if err != nil {
		e.c.errorf("rao correct: %v", err)
		return exitFailure
	}
	now := time.Now().UTC()
	step := audit.Step{
		Cause: fmt.Sprintf("correct.%s.%d", runID, now.UnixNano()), Kind: rao.KindOverride, PMRev: res.Rev,
		Summary: "correction by " + orDash(by) + " (lesson for project " + st.Project + "): " + short(note, 100),
		Mutate: func(s *audit.State) {
			s.Overrides = append(s.Overrides, audit.Override{Action: "correct", By: orDash(by), Reason: note, TS: now.Format(time.RFC3339)})
		},
	}
	if err := e.recordWithRetry(ctx, runID, step); err != nil {
		e.c.errorf("rao correct: %v", err)
		return failCode(err)
	}
	fmt.Fprintf(e.c.stdout, "correction recorded on run %s; lesson stored for project %s\n", runID, st.Project)
	return exitOK
}
