package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
)

// maxEditBytes bounds an --edit arguments file.
const maxEditBytes = 1 << 20

// defaultBy is who decides when --by is not given: the OS user.
func (c *cli) defaultBy() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return c.getenv("USER")
}

func cmdApprove(ctx context.Context, c *cli, args []string) int {
	return c.decide(ctx, "approve", args)
}

func cmdReject(ctx context.Context, c *cli, args []string) int {
	return c.decide(ctx, "reject", args)
}

// decide publishes an approval_decided event for one parked call.
func (c *cli) decide(ctx context.Context, verb string, args []string) int {
	var conn bus.ConnectOptions
	usage := "approve RUN CALL [--note TEXT] [--edit ARGS.json] [--by NAME]"
	if verb == "reject" {
		usage = "reject RUN CALL --note TEXT [--by NAME]"
	}
	fs := c.newFlags(verb, usage)
	conn.Bind(fs, c.getenv)
	note := fs.String("note", "", "why (required to reject)")
	by := fs.String("by", c.defaultBy(), "who decides")
	edit := ""
	if verb == "approve" {
		fs.StringVar(&edit, "edit", "", "run the call with the arguments in this JSON file instead")
	}
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 2 || events.ValidateRunID(pos[0]) != nil || events.ValidateKey(pos[1]) != nil {
		c.errorf("%s: usage: codali %s", verb, usage)
		return exitUsage
	}
	if verb == "reject" && strings.TrimSpace(*note) == "" {
		c.errorf("reject: --note is required: say why")
		return exitUsage
	}
	if strings.TrimSpace(*by) == "" {
		c.errorf("%s: --by is required (no OS user)", verb)
		return exitUsage
	}
	runID, callID := pos[0], pos[1]
	data := events.ApprovalDecidedData{Call: callID, Decision: events.DecisionApprove, By: *by, At: time.Now().UTC(), Note: *note}
	if verb == "reject" {
		data.Decision = events.DecisionReject
	}
	if edit != "" {
		raw, err := readEdit(edit)
		if err != nil {
			c.errorf("approve: --edit: %v", err)
			return exitUsage
		}
		data.EditedArgs = raw
	}
	if err := data.Validate(); err != nil {
		c.errorf("%s: %v", verb, err)
		return exitUsage
	}
	cl, err := c.connect(conn)
	if err != nil {
		c.errorf("%s: %v", verb, err)
		return exitUsage
	}
	defer cl.close()
	runs, err := audit.OpenRuns(ctx, cl.js)
	if err != nil {
		c.errorf("%s: %v (has the pipeline been started?)", verb, err)
		return exitFailure
	}
	// The leader's summary: a call the operator just saw waiting (in
	// `codali runs`, answered by another replica) must not be refused
	// because a lagging replica still has the summary from before it.
	s, err := runs.Latest(ctx, runID)
	if err != nil {
		c.errorf("%s: %v", verb, err)
		return exitFailure
	}
	var pending *audit.Approval
	for i := range s.Pending {
		if s.Pending[i].Call == callID {
			pending = &s.Pending[i]
		}
	}
	if pending == nil {
		c.errorf("%s: call %s of run %s is not waiting for a decision (%s)", verb, callID, runID, waitingOn(s))
		return exitFailure
	}
	env, err := events.NewKeyed(runID, events.KindApprovalDecided, pending.Attempt, callID, "codali/cli", data.At, data)
	if err != nil {
		c.errorf("%s: %v", verb, err)
		return exitFailure
	}
	if err := publishEvent(ctx, cl, env); err != nil {
		c.errorf("%s: %v", verb, err)
		return exitFailure
	}
	past := map[string]string{"approve": "approved", "reject": "rejected"}[verb]
	fmt.Fprintf(c.stdout, "call %s of run %s %s by %s\n", callID, runID, past, *by)
	return exitOK
}

// readEdit reads an --edit file: one JSON object.
func readEdit(path string) (json.RawMessage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	buf, err := io.ReadAll(io.LimitReader(f, maxEditBytes+1))
	if err != nil {
		return nil, err
	}
	n := len(buf)
	if n > maxEditBytes {
		return nil, fmt.Errorf("%s is over %d bytes", path, maxEditBytes)
	}
	var obj map[string]any
	if err := json.Unmarshal(buf[:n], &obj); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object: %w", path, err)
	}
	return json.RawMessage(buf[:n]), nil
}

// pendingApproval is one line of `codali approvals`.
type pendingApproval struct {
	RunID   string `json:"run_id"`
	Project string `json:"project,omitempty"`
	audit.Approval
}

func cmdApprovals(ctx context.Context, c *cli, args []string) int {
	var conn bus.ConnectOptions
	fs := c.newFlags("approvals", "approvals [--json] [--limit N]")
	conn.Bind(fs, c.getenv)
	asJSON := fs.Bool("json", false, "print JSON")
	limit := fs.Int("limit", 1000, "how many recent runs to look at")
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 || *limit < 1 {
		c.errorf("approvals: takes no arguments and a positive --limit")
		return exitUsage
	}
	cl, err := c.connect(conn)
	if err != nil {
		c.errorf("approvals: %v", err)
		return exitUsage
	}
	defer cl.close()
	runs, err := audit.OpenRuns(ctx, cl.js)
	if err != nil {
		c.errorf("approvals: %v (has the pipeline been started?)", err)
		return exitFailure
	}
	list, err := runs.List(ctx, *limit)
	if err != nil {
		c.errorf("approvals: %v", err)
		return exitFailure
	}
	out := []pendingApproval{}
	for _, s := range list {
		if s.Status != audit.StatusRunning {
			continue
		}
		for _, p := range s.Pending {
			out = append(out, pendingApproval{RunID: s.RunID, Project: s.Project, Approval: p})
		}
	}
	if *asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
		return exitOK
	}
	fmt.Fprintf(c.stdout, "%-26s  %-14s  %-12s  %-20s  %s\n", "RUN", "CALL", "TOOL", "DEADLINE", "TARGETS / WARNINGS")
	for _, p := range out {
		fmt.Fprintf(c.stdout, "%-26s  %-14s  %-12s  %-20s  %s; %s\n", p.RunID, p.Call, p.Tool, p.Deadline, short(strings.Join(p.Targets, " "), 60), strings.Join(p.Warnings, "; "))
	}
	return exitOK
}

// describeApproval summarises an approval event for `watch` and
// `submit --wait`: what waits, and how to decide it.
func describeApproval(env events.Envelope) string {
	if k, _ := env.Kind(); k == events.KindApprovalDecided {
		var d events.ApprovalDecidedData
		if events.DecodeData(env, &d) != nil {
			return ""
		}
		return fmt.Sprintf("call %s: %s by %s %s", d.Call, d.Decision, d.By, short(d.Note, 60))
	}
	var d events.ApprovalRequestedData
	if events.DecodeData(env, &d) != nil {
		return ""
	}
	var parts []string
	for _, c := range d.Calls {
		parts = append(parts, fmt.Sprintf("%s %s %s", c.ID, c.Tool, short(strings.Join(c.Targets, " "), 40)))
	}
	what, how := "for approval", "codali approve|reject "+env.RunID()+" CALL"
	if d.Reason != "" {
		what, how = "("+d.Reason+")", "codali budget extend "+env.RunID()+" --tokens N"
	}
	return fmt.Sprintf("waiting %s until %s: %s — %s", what, d.Deadline.Format(time.RFC3339), strings.Join(parts, "; "), how)
}

// waitingOn says what a run waits on, for a decision that names a call it
// does not wait on: its status as `runs` shows it and its pending calls.
func waitingOn(s audit.Summary) string {
	var ids []string
	for _, p := range s.Pending {
		ids = append(ids, p.Call)
	}
	return fmt.Sprintf("run %s; calls waiting: %s", statusOf(s), orDash(strings.Join(ids, ", ")))
}
