package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/afs"
	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/rao"
)

// promote is `codali rao override promote RUN --to user|global --reason
// TEXT`: the explicit approval the Cognitive Protocol asks for before a
// run's learnings move from the project scope to the user or global
// scope. The approval is recorded first, as an override event of the
// run's audit history; then the learnings are merged into the scope's
// hivemind files, each stamped with that approval.
func (e *raoEnv) promote(ctx context.Context, runID, to, reason, by string) int {
	const usage = "rao override: usage: codali rao override promote RUN --to user|global --reason TEXT [--by NAME]"
	if strings.TrimSpace(reason) == "" {
		e.c.errorf("%s", usage)
		return exitUsage
	}
	var dir string
	switch to {
	case "user":
		dir = e.cfg.Context.UserDir
	case "global":
		dir = e.cfg.Context.GlobalDir
	default:
		e.c.errorf("%s (--to %q)", usage, to)
		return exitUsage
	}
	if dir == "" {
		e.c.errorf("rao override promote: the %s scope is not configured (context.%sDir in the configuration)", to, to)
		return exitUsage
	}
	_, evs, err := e.history(ctx, runID)
	if err != nil {
		e.c.errorf("rao override promote: %v", err)
		return failCode(err)
	}
	raw, err := rao.Replay(evs, 0)
	if err != nil {
		e.c.errorf("rao override promote: %v", err)
		return failCode(err)
	}
	st, err := audit.DecodeState(runID, raw)
	if err != nil {
		e.c.errorf("rao override promote: %v", err)
		return failCode(err)
	}
	if !st.Terminal() {
		e.c.errorf("rao override promote: run %s is still %s; promote the learnings of a finished run", runID, st.Status)
		return exitFailure
	}
	files, _ := projectRunsContext([]audit.State{st}, nil)
	learnings := afs.Learnings(files, fmt.Sprintf("project %s, run %s", orDash(st.Project), runID))
	if len(learnings) == 0 {
		fmt.Fprintf(e.c.stdout, "run %s has no learnings to promote; nothing recorded\n", runID)
		return exitOK
	}
	now := time.Now().UTC()
	cause := fmt.Sprintf("override.promote.%s.%d", runID, now.UnixNano())
	step := audit.Step{
		Cause: cause, Kind: rao.KindOverride,
		Summary: fmt.Sprintf("override: %d learnings promoted to the %s scope by %s: %s", len(learnings), to, orDash(by), short(reason, 100)),
		Mutate: func(s *audit.State) {
			s.Overrides = append(s.Overrides, audit.Override{Action: "promote-hivemind:" + to, By: orDash(by), Reason: reason, TS: now.Format(time.RFC3339)})
		},
	}
	if err := e.recordWithRetry(ctx, runID, step); err != nil {
		e.c.errorf("rao override promote: the approval could not be recorded, nothing promoted: %v", err)
		return failCode(err)
	}
	n, err := afs.Promote(dir, afs.Producer{Name: afs.ProducerName, Version: producerVersion(), InstanceID: "codali-cli"}, learnings,
		afs.Approval{By: orDash(by), Reason: reason, Override: cause, At: now.Format(time.RFC3339)}, now)
	if err != nil {
		e.c.errorf("rao override promote: the approval is recorded (%s) but promoting failed: %v", cause, err)
		return exitFailure
	}
	fmt.Fprintf(e.c.stdout, "promoted %d learnings of run %s to %s/hivemind (approval recorded as %s)\n", n, runID, dir, cause)
	return exitOK
}
