package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/rao/raostore"
	"github.com/codali-dev/codali/pkg/redact"
)

const raoUsage = `codali rao <subcommand>:
  replay [RUN] [N] [--json] [--simulate]   timeline of a run (default: the greatest run id) up to event N
  show EVENT [--json] [--simulate]         one event (EVENT is <run>.<seq>) and the state after it
  diff EVENT                               what one event changed
  verify [RUN]                             check histories for modified, removed, reordered or inserted events
  stats [--json]                           storage used versus full snapshots
  audit RUN --note TEXT [--by NAME]        record an auditor's note
  override cancel RUN --reason TEXT [--by NAME]
                                           cancel a running or parked run (recorded as an override)
  correct RUN --note TEXT [--by NAME]      an explicit correction: a repository lesson for the run's project (recorded as an override)

  override promote RUN --to user|global --reason TEXT [--by NAME]
                                           approve promoting a finished run's learnings to a
                                           .context scope's hivemind (recorded as an override)
  rerun RUN [--policy FILE] [--timeout D] [--json]
                                           rerun a finished run on a private pipeline, answering every
                                           model request from its recorded exchanges: exit 0 when
                                           identical, 1 on drift or a different verdict
  fork EVENT [--policy FILE] [--request TEXT] [--by NAME]
                                           start a new run from the state recorded at EVENT`

// raoEnv is what every rao subcommand needs.
type raoEnv struct {
	c        *cli
	cl       *client
	store    *raostore.Store
	redactor *redact.Redactor
	cfg      *config.Config
	policy   *policy.Policy
	asJSON   bool
	simulate bool
	// gatePolicyHash and contractHash tag auditor notes: the configured
	// policy, not a --policy given only to simulate.
	gatePolicyHash, contractHash string
}

func cmdRAO(ctx context.Context, c *cli, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.stderr, raoUsage)
		return exitUsage
	}
	if args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(c.stderr, raoUsage)
		return exitOK
	}
	sub, rest := args[0], args[1:]
	synopsis := raoSynopsis(sub)
	if synopsis == "" {
		c.errorf("rao: unknown subcommand %q\n%s", sub, raoUsage)
		return exitUsage
	}
	var conn bus.ConnectOptions
	fs := c.newFlags("rao "+sub, synopsis)
	conn.Bind(fs, c.getenv)
	asJSON := fs.Bool("json", false, "print JSON (redacted)")
	simulate := fs.Bool("simulate", false, "re-evaluate today's policy over the recorded tool calls (pure: nothing is executed or written)")
	cfgPath := fs.String("config", c.getenv("CODALI_CONFIG"), "codali.config.json: today's policy and redaction patterns")
	policyPath := fs.String("policy", "", "policy file to simulate with, or (rerun, fork) for the new run's gate to enforce (overrides the config's)")
	note := fs.String("note", "", "audit, correct: the note")
	reason := fs.String("reason", "", "override: why")
	by := fs.String("by", c.defaultBy(), "audit/override/fork: who")
	to := fs.String("to", "", "override promote: the scope, user or global (context.userDir / context.globalDir)")
	rerunTimeout := fs.Duration("timeout", 10*time.Minute, "rerun: give up after this long")
	request := fs.String("request", "", "fork: the new run's request (default: the recorded one, with its plan)")
	pos, code, ok := parse(fs, rest)
	if !ok {
		return code
	}
	e := &raoEnv{c: c, asJSON: *asJSON, simulate: *simulate}
	var err error
	if e.cfg, err = config.Load(*cfgPath); err != nil {
		c.errorf("rao: %v", err)
		return exitUsage
	}
	if e.redactor, err = redact.New(e.cfg.Redact.Patterns); err != nil {
		c.errorf("rao: %v", err)
		return exitUsage
	}
	if e.policy, err = loadPolicy(*policyPath, e.cfg); err != nil {
		c.errorf("rao: %v", err)
		return exitUsage
	}
	gate, contract, err := app.LoadGate(e.cfg)
	if err != nil {
		c.errorf("rao: %v", err)
		return exitUsage
	}
	e.gatePolicyHash, e.contractHash = gate.Hash(), contract
	if e.cl, err = c.connect(conn); err != nil {
		c.errorf("rao: %v", err)
		return exitUsage // unreachable: not a verdict
	}
	defer e.cl.close()
	if e.store, err = raostore.Open(ctx, e.cl.js); err != nil {
		c.errorf("rao: %v (is the pipeline provisioned?)", err)
		return exitFailure
	}
	switch sub {
	case "replay":
		return e.replay(ctx, pos)
	case "show":
		return e.show(ctx, pos)
	case "diff":
		return e.diff(ctx, pos)
	case "verify":
		return e.verify(ctx, pos)
	case "stats":
		return e.stats(ctx, pos)
	case "audit":
		return e.audit(ctx, pos, *note, *by)
	case "override":
		if len(pos) == 2 && pos[0] == "promote" {
			return e.promote(ctx, pos[1], *to, *reason, *by)
		}
		return e.override(ctx, pos, *reason, *by)
	case "correct":
		return e.correct(ctx, pos, *note, *by)
	case "rerun":
		return e.rerun(ctx, pos, rerunOptions{timeout: *rerunTimeout, policy: *policyPath, wrapProvider: c.wrapReplay})
	case "fork":
		return e.fork(ctx, pos, *request, *policyPath, *by)
	}
	c.errorf("rao: unknown subcommand %q\n%s", sub, raoUsage)
	return exitUsage
}

// raoSynopsis is the usage line of one rao subcommand, from raoUsage
// (both forms for override), followed by a note that the flags listed
// are shared by every subcommand; "" for an unknown subcommand.
func raoSynopsis(sub string) string {
	var forms []string
	for _, line := range strings.Split(raoUsage, "\n") {
		// Synopses are indented by two spaces, descriptions by more.
		if !strings.HasPrefix(line, "  "+sub+" ") {
			continue
		}
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "  "); i > 0 { // the synopsis ends where the description column starts
			line = line[:i]
		}
		forms = append(forms, "rao "+line)
	}
	if len(forms) == 0 {
		return ""
	}
	return strings.Join(forms, "\n       codali ") + "\n\n(the flags below are shared by every rao subcommand; each reads the ones its usage names)"
}

func loadPolicy(path string, cfg *config.Config) (*policy.Policy, error) {
	if path == "" {
		path = cfg.Policy
	}
	if path == "" {
		return policy.Default(), nil
	}
	return policy.Load(path)
}

// errBadID: an argument is not a run or event id (a usage error).
var errBadID = errors.New("not an id")

// failCode is the exit code for an error: 2 for usage errors, 1 otherwise.
func failCode(err error) int {
	if errors.Is(err, errBadID) {
		return exitUsage
	}
	return exitFailure
}

// history loads a run's events; an empty run id picks the latest run.
func (e *raoEnv) history(ctx context.Context, runID string) (string, []rao.Event, error) {
	if runID == "" {
		runs, err := e.store.Runs(ctx)
		if err != nil {
			return "", nil, err
		}
		if len(runs) == 0 {
			return "", nil, errors.New("no run has a history yet")
		}
		runID = runs[len(runs)-1] // time-sortable run ids (codali submit's) sort by time; others need naming
	}
	if events.ValidateRunID(runID) != nil {
		return "", nil, fmt.Errorf("%w: %q is not a run id", errBadID, runID)
	}
	evs, _, err := e.store.Load(ctx, runID)
	if err != nil {
		return "", nil, err
	}
	if len(evs) == 0 {
		return "", nil, fmt.Errorf("run %s has no history", runID)
	}
	return runID, evs, nil
}

// eventView is one event in JSON output.
type eventView struct {
	ID         string           `json:"id"`
	Seq        uint64           `json:"seq"`
	TS         time.Time        `json:"ts"`
	Kind       rao.Kind         `json:"kind"`
	Summary    string           `json:"summary"`
	Checkpoint bool             `json:"checkpoint,omitempty"`
	Meta       rao.Meta         `json:"meta"`
	Delta      rao.Patch        `json:"delta"`
	Simulate   *audit.Simulated `json:"simulate,omitempty"`
	State      json.RawMessage  `json:"state,omitempty"`
}

func (e *raoEnv) view(ev rao.Event, state []byte, withState bool) eventView {
	v := eventView{ID: ev.ID, Seq: ev.Seq, TS: ev.TS, Kind: ev.Kind, Summary: ev.Summary, Checkpoint: ev.Checkpoint, Meta: ev.Meta.Display(), Delta: ev.Delta}
	if e.simulate {
		s := audit.Simulate(e.policy, ev, state)
		v.Simulate = &s
	}
	if withState {
		v.State = state
	}
	return v
}

func (e *raoEnv) replay(ctx context.Context, pos []string) int {
	if len(pos) > 2 {
		e.c.errorf("rao replay: usage: codali rao replay [RUN] [N]")
		return exitUsage
	}
	var runID string
	var upto uint64
	for _, p := range pos {
		if n, err := strconv.ParseUint(p, 10, 64); err == nil && runID == "" && len(pos) == 1 || err == nil && runID != "" {
			upto = n
			continue
		}
		runID = p
	}
	runID, evs, err := e.history(ctx, runID)
	if err != nil {
		e.c.errorf("rao replay: %v", err)
		return failCode(err)
	}
	states, err := rao.States(evs)
	if err != nil {
		e.c.errorf("rao replay: %v", err)
		return failCode(err)
	}
	var views []eventView
	var final []byte
	for i, st := range states {
		if upto > 0 && evs[i].Seq > upto {
			break
		}
		v := e.view(evs[i], st.Doc, false)
		// Replay shows what happened, not how it is stored: the output is
		// the same whatever the checkpoint interval (see rao show for it).
		v.Checkpoint = false
		views = append(views, v)
		final = st.Doc
	}
	if e.asJSON {
		return e.printJSON(map[string]any{"run_id": runID, "events": views, "state": json.RawMessage(final)})
	}
	if len(views) == 0 {
		e.c.errorf("rao replay: run %s has no event up to %d (it starts at %d)", runID, upto, evs[0].Seq)
		return exitUsage
	}
	var b strings.Builder
	fmt.Fprintf(&b, "run %s: events %d–%d of %d", runID, views[0].Seq, views[len(views)-1].Seq, len(evs))
	if first := evs[0]; first.Seq > 1 {
		fmt.Fprintf(&b, " (compacted: history starts at checkpoint %d)", first.Seq)
	}
	b.WriteString("\n")
	for _, v := range views {
		writeTimelineLine(&b, v)
	}
	fmt.Fprintf(&b, "\nstate after event %d:\n", views[len(views)-1].Seq)
	b.WriteString(indentJSON(final))
	fmt.Fprint(e.c.stdout, e.redactor.String(b.String()))
	return exitOK
}

func writeTimelineLine(b *strings.Builder, v eventView) {
	fmt.Fprintf(b, "%4d  %s  %-8s %s\n", v.Seq, v.TS.Format("15:04:05.000"), v.Kind, v.Summary)
	fmt.Fprintf(b, "       policy %s  contract %s  pm_rev %s\n", abbrev(v.Meta.PolicyHash), abbrev(v.Meta.ContractHash), v.Meta.PMRev)
	if s := v.Simulate; s != nil {
		writeSimulation(b, s)
	}
}

func writeSimulation(b *strings.Builder, s *audit.Simulated) {
	if !s.Available {
		fmt.Fprintf(b, "       simulate: unavailable (%s)\n", s.Reason)
		return
	}
	for _, c := range s.Calls {
		fmt.Fprintf(b, "       simulate %s: recorded %s, today %s", c.Tool, decisionText(c.Recorded), decisionText(c.Simulated))
		if c.WouldPark {
			b.WriteString(", would wait for approval")
		}
		d := c.Diff
		if d.Empty() {
			b.WriteString(" (no change)\n")
			continue
		}
		b.WriteString("\n")
		if d.BlockedFlipped {
			fmt.Fprintf(b, "         blocked flipped: %v → %v\n", c.Recorded.Blocked, c.Simulated.Blocked)
		}
		for _, w := range d.WarningsAdded {
			fmt.Fprintf(b, "         + warning: %s\n", w)
		}
		for _, w := range d.WarningsRemoved {
			fmt.Fprintf(b, "         - warning: %s\n", w)
		}
		for _, r := range d.ReasonsAdded {
			fmt.Fprintf(b, "         + reason: %s\n", r)
		}
		for _, r := range d.ReasonsRemoved {
			fmt.Fprintf(b, "         - reason: %s\n", r)
		}
	}
}

func decisionText(d policy.Decision) string {
	s := "allowed"
	if d.Blocked {
		s = "BLOCKED"
	}
	if n := len(d.Warnings); n > 0 {
		s += fmt.Sprintf(" with %d warning(s)", n)
	}
	return s
}

func abbrev(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// findEvent resolves <run>.<seq> to the event and the states before and
// after it.
func (e *raoEnv) findEvent(ctx context.Context, id string) (rao.Event, []byte, []byte, error) {
	runID, seq, err := parseEventID(id)
	if err != nil {
		return rao.Event{}, nil, nil, err
	}
	_, evs, err := e.history(ctx, runID)
	if err != nil {
		return rao.Event{}, nil, nil, err
	}
	return eventIn(evs, id, seq)
}

// parseEventID splits an event id (<run>.<seq>) into its run and seq.
func parseEventID(id string) (string, uint64, error) {
	i := strings.LastIndexByte(id, '.')
	if i <= 0 {
		return "", 0, fmt.Errorf("%w: %q is not an event id (<run>.<seq>)", errBadID, id)
	}
	seq, err := strconv.ParseUint(id[i+1:], 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("%w: %q is not an event id (<run>.<seq>)", errBadID, id)
	}
	return id[:i], seq, nil
}

// eventIn finds event id (seq) in a run's history and returns it with
// the states before and after it.
func eventIn(evs []rao.Event, id string, seq uint64) (rao.Event, []byte, []byte, error) {
	states, err := rao.States(evs)
	if err != nil {
		return rao.Event{}, nil, nil, err
	}
	before := []byte("{}")
	for j, st := range states {
		if evs[j].Seq == seq {
			return evs[j], before, st.Doc, nil
		}
		before = st.Doc
	}
	return rao.Event{}, nil, nil, fmt.Errorf("event %s not found (compacted or never recorded)", id)
}

func (e *raoEnv) show(ctx context.Context, pos []string) int {
	if len(pos) != 1 {
		e.c.errorf("rao show: usage: codali rao show EVENT")
		return exitUsage
	}
	ev, _, after, err := e.findEvent(ctx, pos[0])
	if err != nil {
		e.c.errorf("rao show: %v", err)
		return failCode(err)
	}
	v := e.view(ev, after, true)
	if e.asJSON {
		return e.printJSON(v)
	}
	var b strings.Builder
	writeTimelineLine(&b, v)
	stored := "delta"
	if ev.Checkpoint {
		stored = "delta + full snapshot (checkpoint)"
	}
	fmt.Fprintf(&b, "       base %s  prev_hash %s  %d delta ops  stored as %s\n\nstate after:\n%s", orDash(ev.Base), abbrev(ev.PrevHash), len(ev.Delta), stored, indentJSON(after))
	fmt.Fprint(e.c.stdout, e.redactor.String(b.String()))
	return exitOK
}

func (e *raoEnv) diff(ctx context.Context, pos []string) int {
	if len(pos) != 1 {
		e.c.errorf("rao diff: usage: codali rao diff EVENT")
		return exitUsage
	}
	ev, before, _, err := e.findEvent(ctx, pos[0])
	if err != nil {
		e.c.errorf("rao diff: %v", err)
		return failCode(err)
	}
	if e.asJSON {
		return e.printJSON(ev.Delta)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "event %s (%s): %s\n", ev.ID, ev.Kind, ev.Summary)
	for _, op := range ev.Delta {
		path := op.Path
		if path == "" {
			path = "(whole state)"
		}
		switch op.Op {
		case "add":
			fmt.Fprintf(&b, "+ %s = %s\n", path, compact(op.Value))
		case "remove":
			fmt.Fprintf(&b, "- %s (was %s)\n", path, compact(lookup(before, op.Path)))
		default:
			fmt.Fprintf(&b, "~ %s: %s → %s\n", path, compact(lookup(before, op.Path)), compact(op.Value))
		}
	}
	if len(ev.Delta) == 0 {
		b.WriteString("(no state change)\n")
	}
	fmt.Fprint(e.c.stdout, e.redactor.String(b.String()))
	return exitOK
}

// requireVerified verifies a run's history as `codali rao verify` does
// (hash chain, sequence, head against the run's summary) and returns an
// error naming every finding when it does not verify or
// cannot be checked. Commands that start something from a history (a
// rerun, a fork) call it first: an altered history is no reference.
func (e *raoEnv) requireVerified(ctx context.Context, runID string, evs []rao.Event) error {
	summaries, err := audit.OpenRuns(ctx, e.cl.js)
	if err != nil {
		return err
	}
	ok, findings, err := verifyHistory(ctx, summaries, runID, evs, nil)
	if err != nil {
		return fmt.Errorf("run %s: %w", runID, err)
	}
	if !ok {
		return fmt.Errorf("the history of run %s does not verify (see codali rao verify %s): %s", runID, runID, strings.Join(findings, "; "))
	}
	return nil
}

// verifyHistory checks a run's history: its hash chain and sequence
// (rao.Verify), and its head against the run's summary, kept outside the
// history stream. ok is false when there is any finding but a compaction
// note; the error is the summaries' when they cannot be read.
//
// With reload, a history that does not verify is read again once, and
// its summary after it: an append and its summary that landed after the
// history was read make the summary look ahead of it (docs/rao.md). A
// history that was altered does not verify the second time either.
func verifyHistory(ctx context.Context, summaries *audit.Runs, id string, evs []rao.Event, reload func(context.Context) ([]rao.Event, error)) (ok bool, findings []string, err error) {
	ok, findings, err = verifyOnce(ctx, summaries, id, evs)
	if err != nil || ok || reload == nil {
		return ok, findings, err
	}
	again, rerr := reload(ctx)
	if rerr != nil || len(again) == 0 {
		return ok, findings, nil
	}
	return verifyOnce(ctx, summaries, id, again)
}

// verifyOnce is one check of verifyHistory.
func verifyOnce(ctx context.Context, summaries *audit.Runs, id string, evs []rao.Event) (ok bool, findings []string, err error) {
	rep := rao.Verify(evs)
	ok, findings = rep.OK(), []string{}
	for _, f := range rep.Findings {
		findings = append(findings, f.String())
	}
	// The leader's summary: a lagging replica's older one, from before a
	// compaction, would report the compacted events as removed.
	s, err := summaries.Latest(ctx, id)
	switch {
	case err == nil:
		if cross := audit.CrossCheck(s, evs); len(cross) > 0 {
			ok, findings = false, append(findings, cross...)
		}
	case !errors.Is(err, audit.ErrUnknownRun):
		return false, nil, err
	}
	return ok, findings, nil
}

func (e *raoEnv) verify(ctx context.Context, pos []string) int {
	if len(pos) > 1 {
		e.c.errorf("rao verify: usage: codali rao verify [RUN]")
		return exitUsage
	}
	runs := pos
	if len(runs) == 1 && events.ValidateRunID(runs[0]) != nil {
		e.c.errorf("rao verify: %q is not a run id", runs[0])
		return exitUsage
	}
	if len(runs) == 0 {
		var err error
		if runs, err = e.store.Runs(ctx); err != nil {
			e.c.errorf("rao verify: %v", err)
			return exitFailure
		}
	}
	type result struct {
		RunID    string   `json:"run_id"`
		OK       bool     `json:"ok"`
		Events   int      `json:"events"`
		Findings []string `json:"findings"`
	}
	var results []result
	bad := false
	summaries, err := audit.OpenRuns(ctx, e.cl.js)
	if err != nil {
		e.c.errorf("rao verify: %v", err)
		return exitFailure
	}
	for _, id := range runs {
		evs, _, err := e.store.Load(ctx, id)
		if err != nil {
			e.c.errorf("rao verify: %s: %v", id, err)
			return exitFailure
		}
		if len(evs) == 0 {
			e.c.errorf("rao verify: run %s has no history", id)
			return exitFailure
		}
		ok, findings, err := verifyHistory(ctx, summaries, id, evs, func(ctx context.Context) ([]rao.Event, error) {
			again, _, err := e.store.Load(ctx, id)
			return again, err
		})
		if err != nil {
			e.c.errorf("rao verify: %s: %v", id, err)
			return exitFailure
		}
		r := result{RunID: id, OK: ok, Events: len(evs), Findings: findings}
		bad = bad || !r.OK
		results = append(results, r)
	}
	if e.asJSON {
		e.printJSON(results)
	} else {
		for _, r := range results {
			status := "ok"
			if !r.OK {
				status = "BROKEN"
			}
			fmt.Fprintf(e.c.stdout, "%s  %-6s  %d events\n", r.RunID, status, r.Events)
			for _, f := range r.Findings {
				fmt.Fprintf(e.c.stdout, "    %s\n", f)
			}
		}
		if len(results) == 0 {
			fmt.Fprintln(e.c.stdout, "no histories")
		}
	}
	if bad {
		return exitFailure
	}
	return exitOK
}

func (e *raoEnv) stats(ctx context.Context, pos []string) int {
	if len(pos) > 0 {
		e.c.errorf("rao stats: takes no arguments")
		return exitUsage
	}
	perRun, err := e.store.AllStats(ctx)
	if err != nil {
		e.c.errorf("rao stats: %v", err)
		return exitFailure
	}
	var total rao.Stat
	for _, st := range perRun {
		total.Events += st.Events
		total.BytesStored += st.BytesStored
		total.BytesFullSnapshots += st.BytesFullSnapshots
		total.BytesStates += st.BytesStates
	}
	if total.BytesFullSnapshots > 0 {
		total.Reduction = 1 - float64(total.BytesStored)/float64(total.BytesFullSnapshots)
	}
	if e.asJSON {
		return e.printJSON(map[string]any{"runs": len(perRun), "events": total.Events, "bytes_stored": total.BytesStored,
			"bytes_full_snapshots": total.BytesFullSnapshots, "bytes_states": total.BytesStates, "reduction": total.Reduction})
	}
	fmt.Fprintf(e.c.stdout, "runs %d  events %d\nstored %d bytes; the same history as full snapshots %d bytes; reduction %.1f%%\n(bare states alone: %d bytes)\n",
		len(perRun), total.Events, total.BytesStored, total.BytesFullSnapshots, 100*total.Reduction, total.BytesStates)
	return exitOK
}

// recorder appends auditor notes. It never compacts (the recorder service
// owns retention) and tags notes with the configured policy and contract.
func (e *raoEnv) recorder() *audit.Recorder {
	return &audit.Recorder{Store: e.store, CheckpointEvery: e.cfg.RAO.CheckpointEvery,
		PolicyHash: e.gatePolicyHash, ContractHash: e.contractHash, Redactor: e.redactor}
}

func (e *raoEnv) audit(ctx context.Context, pos []string, note, by string) int {
	if len(pos) != 1 || strings.TrimSpace(note) == "" {
		e.c.errorf("rao audit: usage: codali rao audit RUN --note TEXT [--by NAME]")
		return exitUsage
	}
	runID := pos[0]
	if _, _, err := e.history(ctx, runID); err != nil {
		e.c.errorf("rao audit: %v", err)
		return failCode(err)
	}
	now := time.Now().UTC()
	step := audit.Step{
		Cause: fmt.Sprintf("note.%s.%d", runID, now.UnixNano()), Kind: rao.KindAudit,
		Summary: "auditor note by " + orDash(by) + ": " + short(note, 100),
		Mutate: func(s *audit.State) {
			s.Notes = append(s.Notes, audit.Note{By: orDash(by), Text: note, TS: now.Format(time.RFC3339)})
		},
	}
	if err := e.recordWithRetry(ctx, runID, step); err != nil {
		e.c.errorf("rao audit: %v", err)
		return failCode(err)
	}
	fmt.Fprintf(e.c.stdout, "note recorded on run %s\n", runID)
	return exitOK
}

// recordWithRetry appends one step, retrying when the recorder appended
// concurrently (the expected-sequence check refused the stale write).
func (e *raoEnv) recordWithRetry(ctx context.Context, runID string, step audit.Step) error {
	runs, err := audit.OpenRuns(ctx, e.cl.js)
	if err != nil {
		return err
	}
	for try := 0; try < 5; try++ {
		c, rerr := e.recorder().RecordChange(ctx, runID, []audit.Step{step})
		if rerr == nil {
			// Keep the summary's head current, as the recorder does (of
			// the state as recorded: redacted).
			return runs.Put(ctx, c.Summary())
		}
		if err = rerr; !errors.Is(err, raostore.ErrConflict) {
			return err
		}
	}
	return err
}

func (e *raoEnv) override(ctx context.Context, pos []string, reason, by string) int {
	if len(pos) != 2 || pos[0] != "cancel" || strings.TrimSpace(reason) == "" {
		e.c.errorf("rao override: usage: codali rao override cancel RUN --reason TEXT")
		return exitUsage
	}
	runID := pos[1]
	_, evs, err := e.history(ctx, runID)
	if err != nil {
		e.c.errorf("rao override: %v", err)
		return failCode(err)
	}
	raw, err := rao.Replay(evs, 0)
	if err != nil {
		e.c.errorf("rao override: %v", err)
		return failCode(err)
	}
	st, err := audit.DecodeState(runID, raw)
	if err != nil {
		e.c.errorf("rao override: %v", err)
		return failCode(err)
	}
	if st.Terminal() {
		e.c.errorf("rao override: %v: %s is %s", audit.ErrRunEnded, runID, st.Status)
		return exitFailure
	}
	// The cancel is a terminal event of the run: agents waiting on the run
	// see it, phases stop picking the run up, and the recorder records it
	// as an override.
	data := events.VerdictData{Status: events.StatusCanceled, Phase: "operator", Reason: fmt.Sprintf("canceled by %s: %s", orDash(by), reason),
		Attempts: max(st.Attempt, 1), Integrity: events.IntegrityRed, Code: events.CodeCanceled}
	// The recorded request is redacted, so it is not the run's request
	// byte for byte: the cancel carries none (a failed event without a
	// request belongs to any run) and only the project.
	data.Run.Project = st.Project
	env, err := events.New(runID, events.KindFailed, max(st.Attempt, 1), audit.OperatorSource, time.Now(), data)
	if err != nil {
		e.c.errorf("rao override: %v", err)
		return failCode(err)
	}
	// A failed event is the services' kind: it gets their keyed message
	// id, so no agent can take it first and have the server drop the
	// cancel (and a phase's failed of the same attempt stays one event).
	key, err := bus.MsgIDKey(ctx, e.cl.js)
	if err != nil {
		e.c.errorf("rao override: %v", err)
		return failCode(err)
	}
	id, err := key.For(env.ID)
	if err != nil {
		e.c.errorf("rao override: %v", err)
		return failCode(err)
	}
	if err := publishEventAs(ctx, e.cl, env, id); err != nil {
		e.c.errorf("rao override: %v", err)
		return failCode(err)
	}
	fmt.Fprintf(e.c.stdout, "run %s canceled\n", runID)
	return exitOK
}

func (e *raoEnv) printJSON(v any) int {
	raw, err := json.Marshal(v)
	if err != nil {
		e.c.errorf("rao: %v", err)
		return exitFailure
	}
	red, err := e.redactor.JSON(raw)
	if err != nil {
		e.c.errorf("rao: %v", err)
		return exitFailure
	}
	fmt.Fprintln(e.c.stdout, indentJSON(red))
	return exitOK
}

func indentJSON(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw) + "\n"
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return b.String()
}

func compact(raw json.RawMessage) string {
	if raw == nil {
		return "null"
	}
	s := string(raw)
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// lookup reads the value at a JSON pointer in doc, for diff display.
func lookup(doc []byte, pointer string) json.RawMessage {
	var cur any
	if json.Unmarshal(doc, &cur) != nil {
		return nil
	}
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(cur)
	return json.RawMessage(strings.TrimSpace(buf.String()))
}
