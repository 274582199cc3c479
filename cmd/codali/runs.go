package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
)

func cmdRuns(ctx context.Context, c *cli, args []string) int {
	var conn bus.ConnectOptions
	fs := c.newFlags("runs", "runs [--json] [--limit N]")
	conn.Bind(fs, c.getenv)
	asJSON := fs.Bool("json", false, "print JSON")
	limit := fs.Int("limit", 20, "how many runs to show (most recent first)")
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 || *limit < 1 {
		c.errorf("runs: takes no arguments and a positive --limit")
		return exitUsage
	}
	cl, err := c.connect(conn)
	if err != nil {
		c.errorf("runs: %v", err)
		return exitUsage // unreachable: not a verdict
	}
	defer cl.close()
	runs, err := audit.OpenRuns(ctx, cl.js)
	if err != nil {
		c.errorf("runs: %v (has the pipeline been started?)", err)
		return exitFailure
	}
	list, err := runs.List(ctx, *limit)
	if err != nil {
		c.errorf("runs: %v", err)
		return exitFailure
	}
	if *asJSON {
		if list == nil {
			list = []audit.Summary{}
		}
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(list)
		return exitOK
	}
	width := 9 // the column as wide as before when no run waits
	for _, s := range list {
		width = max(width, len(statusOf(s)))
	}
	fmt.Fprintf(c.stdout, "%-26s  %-*s  %-7s  %-9s  %-5s  %-8s  %-13s  %s\n", "RUN", width, "STATUS", "ATTEMPT", "PHASE", "INTEG", "UPDATED", "TOKENS IN/OUT", "REQUEST")
	for _, s := range list {
		fmt.Fprintln(c.stdout, summaryLine(s, width))
	}
	return exitOK
}

func cmdWatch(ctx context.Context, c *cli, args []string) int {
	var conn bus.ConnectOptions
	fs := c.newFlags("watch", "watch RUN [--json] [--timeout D]")
	conn.Bind(fs, c.getenv)
	asJSON := fs.Bool("json", false, "stream the run's events and live progress as JSON lines (the terminal event last)")
	timeout := fs.Duration("timeout", 30*time.Minute, "give up after this long (exit 2)")
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 || events.ValidateRunID(pos[0]) != nil || *timeout <= 0 {
		c.errorf("watch: give one valid run id and a positive --timeout")
		return exitUsage
	}
	runID := pos[0]
	cl, err := c.connect(conn)
	if err != nil {
		c.errorf("watch: %v", err)
		return exitUsage // unreachable: not a verdict
	}
	defer cl.close()
	sub, err := subscribeRun(ctx, cl, runID)
	if err != nil {
		c.errorf("watch: %v", err)
		return exitUsage
	}
	defer sub.close()
	runs, err := audit.OpenRuns(ctx, cl.js)
	if err != nil {
		c.errorf("watch: %v (has the pipeline been started?)", err)
		return exitUsage
	}
	s, err := runs.Get(ctx, runID)
	switch {
	case errors.Is(err, audit.ErrUnknownRun):
		fmt.Fprintf(c.stderr, "run %s not recorded yet; waiting for its events\n", runID)
	case err != nil:
		c.errorf("watch: %v", err)
		return exitUsage
	case s.Status != audit.StatusRunning:
		return c.ended(s, *asJSON)
	default:
		fmt.Fprintln(c.stderr, "so far: "+strings.TrimSpace(summaryLine(s, 0)))
	}
	progress := c.stdout
	if *asJSON {
		progress = c.stderr
	}
	f := newFollower(progress, c.stdoutTTY && !*asJSON)
	if *asJSON {
		f.lines = c.stdout
	}
	if !s.Created.IsZero() {
		f.start, f.last = s.Created, s.Updated // times count from the run's start
	}
	term, sum, err := sub.wait(ctx, f, *timeout, func() (audit.Summary, bool) {
		s, err := runs.Get(ctx, runID)
		return s, err == nil && s.Status != audit.StatusRunning
	})
	if errors.Is(err, errEndedElsewhere) {
		return c.ended(sum, *asJSON)
	}
	if err != nil {
		c.errorf("watch: run %s: %v", runID, err)
		return exitUsage
	}
	return c.finishAs(term, *asJSON, *asJSON, "")
}

// ended reports a run that had already ended when watched.
func (c *cli) ended(s audit.Summary, asJSON bool) int {
	if asJSON {
		f := &follower{lines: c.stdout}
		f.jsonLine(jsonLine{Kind: "summary", Summary: s})
	} else {
		fmt.Fprintf(c.stdout, "run %s already %s after %d attempt(s), integrity %s: %s\n", s.RunID, s.Status, s.Attempt, orDash(s.Integrity), s.Reason)
	}
	if s.Status == audit.StatusPassed {
		return exitOK
	}
	return exitFailure
}
