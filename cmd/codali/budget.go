package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
)

// budgetTool is the tool of the call a run parks on when it reaches its
// budget (the builder's ToolBudget).
const budgetTool = "budget"

func cmdBudget(ctx context.Context, c *cli, args []string) int {
	var conn bus.ConnectOptions
	usage := "budget extend RUN (--tokens N | --cost X) [--note TEXT] [--by NAME]"
	fs := c.newFlags("budget", usage)
	conn.Bind(fs, c.getenv)
	tokens := fs.Int("tokens", 0, "tokens to add to the run's budget")
	cost := fs.Float64("cost", 0, "cost to add to the run's budget")
	note := fs.String("note", "", "why")
	by := fs.String("by", c.defaultBy(), "who extends")
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	ext := events.Budget{Tokens: *tokens, Cost: *cost}
	if len(pos) != 2 || pos[0] != "extend" || events.ValidateRunID(pos[1]) != nil || ext.Validate() != nil || ext == (events.Budget{}) {
		c.errorf("budget: usage: codali %s (a positive --tokens or --cost)", usage)
		return exitUsage
	}
	if strings.TrimSpace(*by) == "" {
		c.errorf("budget: --by is required (no OS user)")
		return exitUsage
	}
	runID := pos[1]
	cl, err := c.connect(conn)
	if err != nil {
		c.errorf("budget: %v", err)
		return exitUsage
	}
	defer cl.close()
	runs, err := audit.OpenRuns(ctx, cl.js)
	if err != nil {
		c.errorf("budget: %v (has the pipeline been started?)", err)
		return exitFailure
	}
	// The leader's summary, as approve reads it.
	s, err := runs.Latest(ctx, runID)
	if err != nil {
		c.errorf("budget: %v", err)
		return exitFailure
	}
	var call *audit.Approval
	for i := range s.Pending {
		if s.Pending[i].Tool == budgetTool {
			call = &s.Pending[i]
		}
	}
	if call == nil {
		c.errorf("budget: run %s is not waiting on its budget (run %s)", runID, statusOf(s))
		return exitFailure
	}
	data := events.ApprovalDecidedData{Call: call.Call, Decision: events.DecisionApprove, By: *by, At: time.Now().UTC(), Note: *note, Extend: &ext}
	if err := data.Validate(); err != nil {
		c.errorf("budget: %v", err)
		return exitUsage
	}
	env, err := events.NewKeyed(runID, events.KindApprovalDecided, call.Attempt, call.Call, "codali/cli", data.At, data)
	if err != nil {
		c.errorf("budget: %v", err)
		return exitFailure
	}
	if err := publishEvent(ctx, cl, env); err != nil {
		c.errorf("budget: %v", err)
		return exitFailure
	}
	fmt.Fprintf(c.stdout, "budget of run %s extended by %d tokens, %g cost (by %s)\n", runID, ext.Tokens, ext.Cost, *by)
	return exitOK
}
