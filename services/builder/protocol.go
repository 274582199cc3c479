package builder

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/afs"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/redact"
	"github.com/codali-dev/codali/pkg/workspace"
)

// protocol runs the Cognitive Protocol v0.3 compliance steps (§6) around
// the builder's tool calls for one attempt. Before each call it reads the
// workspace's .context/ canonical files, matches the hazard playbooks,
// renders state.md and appends a cognitive_state entry; after it, it
// appends the result and updates metacognition and emotions. Every entry
// goes into the built event (BuildCognition), so the .context/ files are a
// projection of the run's events; the ones in the workspace are that
// projection materialised for the model to read.
type protocol struct {
	// dir is the workspace's .context/, read and written without
	// following links (the model's commands can make them).
	dir      afs.Dir
	sess     *afs.Session
	redactor *redact.Redactor
	log      *slog.Logger
	// readable says whether the policy lets the model read a path;
	// hivemind/ is read only when it does.
	readable func(string) bool
	scopes   config.Context
	base     afs.Files
	hazards  []afs.HazardMatch
	flushed  int
	errs     []string

	warnedStep  int
	warning     string
	helpSeeking bool
	maxFailures int
	stopped     string
	stopDetail  string
}

// protocolState is what a park keeps of the attempt's protocol so that
// the resumed attempt continues the same session: its entries (the
// session's state, metacognition and emotions are their fold) and the
// spinning rule's and help-seeking's own bookkeeping.
type protocolState struct {
	Entries     []afs.Entry `json:"entries"`
	WarnedStep  int         `json:"warned_step,omitempty"`
	Warning     string      `json:"warning,omitempty"`
	HelpSeeking bool        `json:"help_seeking,omitempty"`
	MaxFailures int         `json:"max_failures,omitempty"`
	Errs        []string    `json:"errors,omitempty"`
}

// state is the protocol as a park stores it.
func (p *protocol) state() *protocolState {
	return &protocolState{Entries: p.sess.Entries(), WarnedStep: p.warnedStep, Warning: p.warning, HelpSeeking: p.helpSeeking,
		MaxFailures: p.maxFailures, Errs: p.errs}
}

// newProtocol starts the attempt's session and records what the plan
// says: the request, the plan and its steps as state, risks as unknowns,
// verification commands as assumptions, the plan summary as strategy.
// A resumed attempt passes the state its park stored (restored non-nil):
// the session continues from its entries instead; restoredInWorkspace says
// the rebuilt workspace already holds their history lines
// (options.write_context carries them in the parked change).
func newProtocol(wsDir string, in events.Envelope, pd events.PlanData, model string, now func() time.Time, red *redact.Redactor, log *slog.Logger, readable func(string) bool, scopes config.Context, restored *protocolState, restoredInWorkspace bool) (*protocol, error) {
	p := &protocol{dir: afs.Dir{Path: filepath.Join(wsDir, afs.Root), NoLinks: true}, redactor: red, log: log, readable: readable, scopes: scopes}
	p.base = p.read()
	cfg := afs.SessionConfig{SessionID: fmt.Sprintf("%s.a%d", in.RunID(), in.Attempt), ProjectID: pd.Run.Project,
		AgentID: events.ServiceBuilder, ModelID: model, Producer: afs.DefaultProducer(events.ServiceBuilder), Now: now, Base: p.base}
	if restored != nil {
		sess, err := afs.ResumeSession(cfg, restored.Entries)
		if err != nil {
			return nil, fmt.Errorf("could not resume the cognitive protocol session: %w", err)
		}
		p.sess, p.warnedStep, p.warning, p.helpSeeking, p.maxFailures = sess, restored.WarnedStep, restored.Warning, restored.HelpSeeking, restored.MaxFailures
		p.errs = append([]string(nil), restored.Errs...)
		if restoredInWorkspace {
			p.flushed = len(restored.Entries)
		}
		p.flush()
		return p, nil
	}
	p.sess = afs.NewSession(cfg)
	s := p.sess
	s.SetState(afs.SectionContext, "request", red.String(pd.Run.Request.Request))
	s.SetState(afs.SectionContext, "run", fmt.Sprintf("%s attempt %d", in.RunID(), in.Attempt))
	s.SetState(afs.SectionDecisions, "plan", red.String(pd.Plan.Summary))
	for i, st := range pd.Plan.Steps {
		key := st.ID
		if key == "" {
			key = fmt.Sprintf("step-%d", i+1)
		}
		s.SetState(afs.SectionGoals, key, red.String(st.Description))
	}
	for i, f := range pd.Run.Failures {
		s.SetState(afs.SectionFacts, fmt.Sprintf("earlier-failure-%d", i+1), red.String(f))
	}
	for i, r := range pd.Plan.Risks {
		s.AddEpistemic(afs.EpistemicItem{ID: fmt.Sprintf("risk-%d", i+1), Kind: afs.KindUnknown, Statement: red.String(r), Confidence: 0.5, Source: "plan"})
	}
	for i, v := range pd.Plan.Verify {
		s.AddEpistemic(afs.EpistemicItem{ID: fmt.Sprintf("verify-%d", i+1), Kind: afs.KindAssumption,
			Statement: strings.Join(v.Command, " ") + " verifies the change", Confidence: 0.7, Source: "plan"})
	}
	s.SetStrategy(red.String(pd.Plan.Summary))
	p.flush()
	return p, nil
}

// read reads the workspace's .context/ merged with the configured user
// and global scopes (which fill in only what the project lacks); problems
// are kept for the built event and logged, and whatever could be read is
// used.
func (p *protocol) read() afs.Files {
	f, conflicts, err := afs.ReadScopes(p.dir, p.scopes.UserDir, p.scopes.GlobalDir)
	if err != nil {
		p.problem("read .context: " + err.Error())
	}
	for _, c := range conflicts {
		p.log.Debug("cognitive protocol scope conflict", "file", c.File, "key", c.Key, "rule", c.Rule)
	}
	for name := range f.Hivemind {
		if p.readable == nil || !p.readable(afs.Root+"/"+afs.DirHivemind+"/"+name) {
			delete(f.Hivemind, name)
		}
	}
	return f
}

func (p *protocol) problem(msg string) {
	msg = p.redactor.String(msg)
	if !slices.Contains(p.errs, msg) {
		p.errs = append(p.errs, msg)
		p.log.Warn("cognitive protocol", "problem", msg)
	}
}

// thought keeps the model's thought as a thought_trace entry.
func (p *protocol) thought(text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	p.sess.Thought(p.redactor.String(text))
}

// before is the pre-execution step. It returns the start entry's id and a
// note for the model naming the matched hazards' mitigations.
func (p *protocol) before(tool string, args json.RawMessage) (string, string) {
	p.base = p.read()
	call := p.redactedCall(protocolCall(tool, args))
	snap, id := p.sess.BeforeTool(p.base, call, p.recordArgs(args))
	p.hazards = snap.Hazards
	if err := p.dir.WriteFile(afs.PathStateMD, []byte(p.sess.StateMD(p.base, snap))); err != nil {
		p.problem(err.Error())
	}
	p.appendHistory()
	var note []string
	for _, h := range snap.Hazards {
		note = append(note, fmt.Sprintf("hazard %q (%s): %s", h.ID, h.Trigger, h.Mitigation))
	}
	return id, strings.Join(note, "\n")
}

// after is the post-execution step: it records the result and returns the
// metacognition's signals.
func (p *protocol) after(id string, rec events.ToolExecution) afs.Signals {
	o := afs.Outcome{Success: rec.Result.OK, Error: rec.Result.Error, DurationMS: rec.Result.DurationMS, Blocked: rec.Gate.Blocked}
	var call policy.ToolCall
	if rec.Result.OK && json.Unmarshal(rec.Call, &call) == nil && call.Writes && len(call.Paths) > 0 {
		o.FilesTouched = call.Paths[:1]
	}
	sig := p.sess.AfterTool(id, rec.Tool, p.recordArgs(rec.Args), o)
	if sig.NeedsHelp {
		p.helpSeeking = true
	}
	p.maxFailures = max(p.maxFailures, sig.ConsecutiveFailures)
	p.flush()
	return sig
}

// spin applies the spinning rule after a tool call at step: the first
// time, the model is warned at the end of the turn and a self-correction
// is recorded; if it is still spinning in a later turn, the attempt
// stops. It reports whether to stop.
func (p *protocol) spin(step int, sig afs.Signals) bool {
	if !sig.Spinning {
		p.warnedStep = 0
		return false
	}
	m := p.sess.Metacognition()
	actions := m.SpinDetection.RecentActions
	last := actions[len(actions)-1]
	if p.warnedStep > 0 && p.warnedStep < step {
		p.stopped = events.StopSpinning
		p.stopDetail = fmt.Sprintf("%s repeated %d times without progress after the model was asked to change strategy", last, sig.SimilarActions)
		return true
	}
	if p.warnedStep == 0 {
		p.warnedStep = step
		p.warning = fmt.Sprintf("Metacognition: you are spinning: %s was repeated %d times without progress. Do not repeat it. "+
			"Choose a different strategy, say which in your thought, and act on it; if you repeat it again this attempt ends.", last, sig.SimilarActions)
		p.sess.SelfCorrect(fmt.Sprintf("spinning: %s repeated %d times without progress", last, sig.SimilarActions), "model asked for another strategy")
		p.flush()
	}
	return false
}

// takeWarning returns the pending spinning warning once.
func (p *protocol) takeWarning() string {
	w := p.warning
	p.warning = ""
	return w
}

// record is the attempt's protocol record for the built event.
func (p *protocol) record() *events.BuildCognition {
	return &events.BuildCognition{Entries: p.sess.Entries(), Stopped: p.stopped, StopDetail: p.stopDetail, HelpSeeking: p.helpSeeking,
		MaxConsecutiveFailures: p.maxFailures, Heuristics: p.sess.Emotions().Heuristics(), ContextErrors: p.errs}
}

// flush appends new entries to history/ and rewrites the projected
// scratchpad files in the workspace.
func (p *protocol) flush() {
	p.appendHistory()
	files, conflicts := p.sess.Files(p.base)
	for _, c := range conflicts {
		p.log.Debug("cognitive protocol merge conflict", "file", c.File, "key", c.Key, "rule", c.Rule)
	}
	files.History, files.Hazards, files.Hivemind, files.Goals = nil, nil, nil, nil
	if files.Snapshot != nil {
		// state.md keeps the mitigations of the last call's hazards.
		files.Snapshot.Hazards = p.hazards
	}
	if err := p.dir.Write(files); err != nil {
		p.problem("write .context: " + err.Error())
	}
}

func (p *protocol) appendHistory() {
	entries := p.sess.Entries()
	if err := p.dir.AppendHistory(entries[p.flushed:]...); err != nil {
		p.problem("append history: " + err.Error())
		return
	}
	p.flushed = len(entries)
}

// recordArgs is the history copy of a call's arguments: long text elided,
// secrets redacted (as in the tool record).
func (p *protocol) recordArgs(args json.RawMessage) json.RawMessage {
	x := executor{redactor: p.redactor}
	return x.recordArgs(args)
}

// protocolCall is the hazard-matching view of a call: its path and
// command arguments.
func protocolCall(tool string, args json.RawMessage) afs.Call {
	var a struct {
		Path    string   `json:"path"`
		Command []string `json:"command"`
	}
	_ = json.Unmarshal(args, &a)
	c := afs.Call{Tool: tool, Command: a.Command}
	if a.Path != "" {
		c.Paths = []string{filepath.ToSlash(filepath.Clean(a.Path))}
	}
	return c
}

// redactedCall is c as the history may hold it (entries travel in the
// built event): every argument and path redacted, at most 16 arguments of
// at most 256 bytes each.
func (p *protocol) redactedCall(c afs.Call) afs.Call {
	const keep, clipAt = 16, 256
	clip := func(in []string) []string {
		var out []string
		for i, a := range in {
			if i == keep {
				out = append(out, fmt.Sprintf("[… %d more]", len(in)-keep))
				break
			}
			a = p.redactor.String(a)
			if len(a) > clipAt {
				a = a[:clipAt] + fmt.Sprintf("…[%d more bytes]", len(a)-clipAt)
			}
			out = append(out, a)
		}
		return out
	}
	c.Command, c.Paths = clip(c.Command), clip(c.Paths)
	return c
}

// protocolRefusal is the file policy table's reason for refusing a
// write, edit or delete of a protected .context/ path, or "".
func protocolRefusal(call policy.ToolCall) string {
	if !call.Writes && !call.Deletes {
		return ""
	}
	for _, path := range call.Paths {
		if r, ok := afs.Classify(path); ok {
			if reason := r.Reason(path); reason != "" {
				return reason
			}
		}
	}
	return ""
}

// change takes the attempt's change; with options.write_context the run's
// .context/scratchpad and .context/history files are part of it.
func (s *Service) change(ctx context.Context, ws *workspace.Workspace, writeContext bool) (events.Change, error) {
	if writeContext {
		return ws.ChangeWith(ctx, workspace.ContextChangePaths...)
	}
	return ws.Change(ctx)
}

// confirmDestructive reports whether the emotions call for approval of
// destructive operations (high anxiety).
func (p *protocol) confirmDestructive() bool {
	return p.sess.Emotions().Heuristics().ConfirmDestructive
}

// WarningAnxiousDestructive is the approval warning added to a destructive
// call the policy lets through while anxiety is high.
const WarningAnxiousDestructive = policy.WarningRequiresApproval + ": destructive operation during a troubled attempt (cognitive protocol §3.1)"

// heuristicGate adds the build-mode emotion heuristics to a gate
// decision: while anxiety is high, a destructive call the policy allows
// (silently or with a warning) requires approval. Emotions never block.
func (x *executor) heuristicGate(call policy.ToolCall, d policy.Decision) policy.Decision {
	if d.Blocked || x.confirmDestructive == nil || !x.confirmDestructive() {
		return d
	}
	probe := *x.policy
	probe.Destructive = policy.DestructiveWarn
	destructive := false
	for _, w := range probe.Evaluate(call).Warnings {
		if strings.HasPrefix(w, policy.ReasonDestructive) {
			destructive = true
		}
	}
	if destructive {
		d.Warnings = append(append([]string(nil), d.Warnings...), WarningAnxiousDestructive)
	}
	return d
}

// recordWithin is record with its entries kept under budget bytes (a share
// of the event size limit): thought texts are elided first, then tool
// errors, each replaced by its size. What the projection folds (tool
// inputs, success, files touched, hazards, system events) is kept, so the
// .context/ projected from the event is unchanged apart from those texts.
func (p *protocol) recordWithin(budget int) *events.BuildCognition {
	rec := p.record()
	size := func() int {
		b, _ := json.Marshal(rec.Entries)
		return len(b)
	}
	if budget <= 0 || size() <= budget {
		return rec
	}
	elided := 0
	for i := range rec.Entries {
		e := &rec.Entries[i]
		if e.Operation.Type == afs.OpThoughtTrace {
			e.Operation.Input = json.RawMessage(fmt.Sprintf(`{"elided_bytes":%d}`, len(e.Operation.Input)))
			elided++
		}
	}
	if size() > budget {
		for i := range rec.Entries {
			e := &rec.Entries[i]
			if e.Operation.Error != "" {
				e.Operation.Error = fmt.Sprintf("[%d bytes elided]", len(e.Operation.Error))
				elided++
			}
		}
	}
	msg := fmt.Sprintf("%d entry texts elided to keep the record under %d bytes", elided, budget)
	if size() > budget {
		msg += fmt.Sprintf("; it is still %d bytes", size())
	}
	rec.ContextErrors = append(rec.ContextErrors, msg)
	return rec
}
