// Package builder is phase 3 of the Codali pipeline: in a fresh workspace
// per run and attempt it runs the model's tool loop — read, write, edit,
// delete, list, search, run — with every call passing the policy gate
// first, then gates the finished change itself (every changed path and the
// line count) and hands it on as a unified diff together with the record
// of every tool call and gate decision.
package builder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/codali-dev/codali/pkg/activity"
	"github.com/codali-dev/codali/pkg/answers"
	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/approval"
	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/budget"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/changegate"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/runcodex"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/codali-dev/codali/pkg/workspace"
)

// Component is the builder as a hostable component.
func Component() app.Component {
	return app.Component{Name: events.ServiceBuilder, NewHandler: New}
}

// Service is the builder.
type Service struct {
	d *app.Deps
	// parkStore is the park store once opened (parks).
	parksMu   sync.Mutex
	parkStore *approval.Store
}

// New returns the builder's handler.
func New(ctx context.Context, d *app.Deps) (worker.Handler, error) {
	if err := d.Workspaces.CheckGit(ctx); err != nil {
		return nil, err
	}
	if _, _, err := d.Model(events.ServiceBuilder); err != nil {
		return nil, err
	}
	// Parks are settled by their deadlines: refuse to park runs whose
	// deadlines would never fire.
	if err := bus.CheckTimers(ctx, d.JS); err != nil {
		return nil, err
	}
	d.CheckSandbox(ctx)
	return (&Service{d: d}).Handle, nil
}

// turn is one answer of the builder's model.
type turn struct {
	Thought   string     `json:"thought,omitempty"`
	ToolCalls []toolCall `json:"tool_calls"`
	Done      bool       `json:"done"`
	Summary   string     `json:"summary,omitempty"`
}

type toolCall struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// maxSummary bounds the model's summary in the built event.
const maxSummary = 4 << 10

// Handle turns a `plan` event into a `built` event, or parks the run on
// tool calls that need approval (approval.go) or on its budget
// (budget.go): it then resumes on the calls' `approval_decided` events
// and fails the run on the park's `approval_deadline`, unless a decision
// settled the park first.
func (s *Service) Handle(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
	switch k, _ := in.Kind(); k {
	case events.KindApprovalDecided:
		return s.resume(ctx, in)
	case events.KindApprovalDeadline:
		return s.deadline(ctx, in)
	}
	pd, err := decodePlan(in)
	if err != nil {
		return nil, worker.Permanent(err)
	}
	bundle, err := s.d.Artifacts.LoadBundle(ctx, pd.Bundle, pd.BundleRef)
	if err != nil {
		err = fmt.Errorf("could not load the context bundle: %w", err)
		if artifacts.IsLost(err) {
			return nil, worker.Permanent(err)
		}
		return nil, err
	}
	msgs := prompt(pd, bundle, s.d.Config.Librarian.PromptTokens)
	learned, err := s.learning(ctx, in.RunID(), pd, bundle)
	if err != nil {
		return nil, err
	}
	msgs[len(msgs)-1].Content += learned
	return s.build(ctx, in, pd, &loopState{Messages: msgs}, "", nil)
}

// build runs (or resumes) the tool loop of the attempt that in (the plan
// event) started, in a workspace holding diff, and returns the built
// event, or the approval_requested event of a park.
func (s *Service) build(ctx context.Context, in events.Envelope, pd events.PlanData, st *loopState, diff string, decided map[string]approval.Decision) ([]events.Envelope, error) {
	_, route, err := s.d.Model(events.ServiceBuilder)
	if err != nil {
		return nil, worker.Permanent(err)
	}
	gate, err := s.d.GateFor(ctx, in.RunID(), pd.Run.Request)
	if err != nil {
		return nil, err
	}
	wsDone := worker.Step(ctx, worker.StepWorkspace)
	ws, err := s.d.Workspaces.Prepare(ctx, in.RunID(), in.Attempt, events.ServiceBuilder, pd.Run.Repo())
	if err == nil && diff != "" {
		// A resumed run: the workspace is rebuilt from the recorded diff.
		if aerr := ws.Apply(ctx, diff); aerr != nil {
			s.d.CloseWorkspace(ws)
			wsDone()
			return nil, worker.Permanent(fmt.Errorf("could not rebuild the parked workspace: %w", aerr))
		}
	}
	wsDone()
	if err != nil {
		if errors.Is(err, workspace.ErrRepo) && !errors.Is(err, workspace.ErrClone) {
			return nil, worker.Permanent(err)
		}
		return nil, err
	}
	defer s.d.CloseWorkspace(ws)
	x := &executor{ws: ws, policy: gate.Policy, policyHash: gate.Hash, redactor: s.d.Redactor,
		runCommand: s.d.CommandRunner(gate), cmdTimeout: time.Duration(s.d.Config.Critic.VerifyTimeoutMS) * time.Millisecond,
		retrieval: s.newRetrieval(pd.Run, gate.Hash), totalLines: st.TotalLines}

	proto, err := newProtocol(ws.Dir, in, pd, route.Route.Model, s.d.Now, s.d.Redactor, s.d.Log, x.readable, s.d.Config.Context,
		st.Protocol, diff != "" && pd.Run.Request.Options.WriteContext)
	if err != nil {
		return nil, worker.Permanent(err)
	}
	x.confirmDestructive = proto.confirmDestructive
	meter := &meter{run: pd.Run, limit: budget.Limit(s.d.Config.Limits, pd.Run), pricing: route.Provider.Pricing}
	summary, parked, err := s.loop(ctx, in, st, x, proto, decided, meter)
	if err != nil {
		return nil, err
	}
	pd.Run = meter.charge(pd.Run, st)
	pd.Run.Usage = events.MergeUsage(pd.Run.Usage, st.Usage...)
	if len(parked) > 0 {
		st.Protocol = proto.state()
		return s.park(ctx, in, pd, st, ws, parked)
	}
	tools := st.Tools
	wsDone = worker.Step(ctx, worker.StepWorkspace)
	change, err := s.change(ctx, ws, pd.Run.Request.Options.WriteContext)
	wsDone()
	if err != nil {
		err = fmt.Errorf("could not take the change: %w", err)
		if errors.Is(err, workspace.ErrTooLarge) || errors.Is(err, workspace.ErrGit) {
			// The same change every time (too large, or paths git refuses,
			// such as .GIT/ written by a command): redelivering would only
			// run the whole tool loop again.
			return nil, worker.Permanent(err)
		}
		return nil, err
	}
	// Gate every change: commands the model ran may have written files no
	// tool call was gated for. The critic fails an attempt whose change
	// the gate blocks, and repeats this check on its own copy.
	tools = append(tools, changegate.CheckDiff(gate.Policy, gate.Hash, s.d.Redactor, change, change.Diff)...)
	if err := s.d.Artifacts.OffloadDiff(ctx, in.RunID(), in.Attempt, &change, s.d.Config.Events.ArtifactThresholdBytes); err != nil {
		return nil, err
	}
	run := pd.Run
	blocked, warnings := events.GateCounts(tools)
	var files []string
	for _, f := range change.Files {
		files = append(files, f.Path)
	}
	run.Codex, err = runcodex.Encode(runcodex.Facts{RunID: in.RunID(), Project: run.Project, Phase: events.ServiceBuilder,
		Attempt: in.Attempt, MaxRetries: run.MaxRetries, Steps: len(pd.Plan.Steps), Actions: []string{"context", "plan", "edit"},
		Files: files, Failures: len(run.Failures), ToolCalls: len(tools), Blocked: blocked, Warnings: warnings, PolicyHash: gate.Hash})
	if err != nil {
		return nil, worker.Permanent(err)
	}
	out, err := in.Follow(events.KindBuilt, in.Attempt, events.SourceFor(events.ServiceBuilder), s.d.Now(), events.BuiltData{
		Run: run, BundleRef: pd.BundleRef, Plan: pd.Plan, Change: change, Tools: tools, Summary: clip(s.d.Redactor.String(summary), maxSummary), Usage: st.Usage,
		Cognition: proto.recordWithin(s.d.Config.Events.MaxEventBytes / 4),
	})
	if err != nil {
		return nil, worker.Permanent(err)
	}
	return []events.Envelope{out}, nil
}

// loopState is where the tool loop stands: the conversation, the record
// of every call so far, and the answer being carried out. It is all a
// parked run needs to resume (stored with the park, approval.go).
type loopState struct {
	Messages []llm.Message          `json:"messages"`
	Tools    []events.ToolExecution `json:"tools"`
	// Step is the model step of Turn (0 before the first).
	Step int `json:"step"`
	// Turn is the answer being carried out; Next its next call; Results
	// the outputs of its calls so far.
	Turn       *turn    `json:"turn,omitempty"`
	Next       int      `json:"next"`
	Results    []string `json:"results,omitempty"`
	TotalLines int      `json:"total_lines"`
	// Usage is the builder's model usage in this attempt (events.ModelUsage,
	// as Ask reports it).
	Usage []events.ModelUsage `json:"usage,omitempty"`
	// Spent is the builder's model use in this attempt, metered per call
	// for the budget; Extra what budget extensions added in it; Used the
	// budget decisions already applied.
	Spent events.Spend  `json:"spent"`
	Extra events.Budget `json:"extra"`
	Used  []string      `json:"used,omitempty"`
	// Protocol is the attempt's Cognitive Protocol session at the park;
	// nil before the first.
	Protocol *protocolState `json:"protocol,omitempty"`
}

// loop runs the tool loop until the model says it is done or a limit is
// reached (which is not an error: the critic judges what was built), or
// until a call needs approval or the budget is reached: it then returns
// the calls to park on. decided holds the decisions of a resumed park's
// calls. Each turn must satisfy the turn schema, with one repair turn; a
// turn that still does not is a contract failure, which ends the run.
func (s *Service) loop(ctx context.Context, in events.Envelope, st *loopState, x *executor, proto *protocol, decided map[string]approval.Decision, m *meter) (string, []parkedCall, error) {
	lim := s.d.Config.Limits
	for {
		if st.Turn == nil {
			if st.Step >= lim.MaxSteps {
				return fmt.Sprintf("stopped: step limit (%d) reached", lim.MaxSteps), nil, nil
			}
			if stop, parked := m.check(in.Attempt, st, decided); stop != "" || len(parked) > 0 {
				return stop, parked, nil
			}
			st.Step++
			step := st.Step
			var t turn
			req := llm.Request{Phase: events.ServiceBuilder, RunID: in.RunID(), Attempt: in.Attempt, Step: step, Messages: st.Messages}
			a, err := s.d.Ask(ctx, req, answers.Turn(), func(doc []byte) error {
				var perr error
				t, perr = parseTurn(string(doc))
				return perr
			})
			st.Usage = events.MergeUsage(st.Usage, a.Usage...)
			req.Model = a.Route.Route.Model
			for _, c := range a.Calls {
				st.Spent = st.Spent.Plus(budget.Use(req, c, m.pricing))
			}
			switch {
			case err == nil:
			case errors.Is(err, llm.ErrContract):
				return "", nil, worker.Permanent(events.WithUsage(fmt.Errorf("step %d: %w", step, err), st.Usage))
			case errors.Is(err, llm.ErrRejected), errors.Is(err, llm.ErrInvalidConfig), errors.Is(err, config.ErrInvalid):
				return "", nil, worker.Permanent(events.WithUsage(fmt.Errorf("model rejected step %d: %w", step, err), st.Usage))
			default:
				return "", nil, fmt.Errorf("model unavailable at step %d: %w", step, err)
			}
			st.Messages = a.Messages
			proto.thought(t.Thought)
			st.Turn, st.Next, st.Results = &t, 0, nil
		}
		for ; st.Next < len(st.Turn.ToolCalls); st.Next++ {
			c := st.Turn.ToolCalls[st.Next]
			if len(st.Tools) >= lim.MaxToolCalls {
				return fmt.Sprintf("stopped: tool call limit (%d) reached", lim.MaxToolCalls), nil, nil
			}
			cid := callID(in.Attempt, st.Step, st.Next)
			d, decidedCall := decided[cid]
			if !decidedCall {
				if parked := x.toPark(in.Attempt, st.Step, st.Next, st.Turn.ToolCalls); len(parked) > 0 {
					return "", parked, nil
				}
			}
			id, hazards := proto.before(c.Tool, c.Args)
			toolDone := worker.Step(ctx, worker.StepTools)
			actx, end := activity.Begin(ctx, activity.Event{Kind: activity.Tool, Name: c.Tool, Step: st.Step})
			var rec events.ToolExecution
			var out string
			if decidedCall {
				// An approved call runs through the same executor (and gate).
				rec, out = x.executeDecided(actx, st.Step, c, cid, d.Data)
			} else {
				rec, out = x.execute(actx, st.Step, c.Tool, c.Args)
			}
			end(toolErr(rec))
			toolDone()
			sig := proto.after(id, rec)
			st.Tools = append(st.Tools, rec)
			if hazards != "" {
				out += "\n" + hazards
			}
			st.Results = append(st.Results, fmt.Sprintf("[%s] %s", c.Tool, out))
			if proto.spin(st.Step, sig) {
				st.TotalLines = x.totalLines
				return "stopped: spinning: " + proto.stopDetail, nil, nil
			}
		}
		st.TotalLines = x.totalLines
		t := st.Turn
		st.Turn = nil
		if t.Done {
			return t.Summary, nil, nil
		}
		if w := proto.takeWarning(); w != "" {
			st.Results = append(st.Results, w)
		}
		if len(st.Results) == 0 {
			st.Results = append(st.Results, "No tool calls and not done. Call tools, or answer {\"done\": true, \"summary\": …}.")
		}
		st.Messages = append(st.Messages, llm.Message{Role: "user", Content: strings.Join(st.Results, "\n\n")})
		st.Results = nil
	}
}

func parseTurn(answer string) (turn, error) {
	raw, err := llm.ExtractJSON(answer)
	if err != nil {
		return turn{}, err
	}
	var t turn
	if err := json.Unmarshal(raw, &t); err != nil {
		return turn{}, fmt.Errorf("answer JSON: %w", err)
	}
	for i, c := range t.ToolCalls {
		if c.Tool == "" {
			return turn{}, fmt.Errorf("tool call %d has no tool", i+1)
		}
	}
	return t, nil
}
