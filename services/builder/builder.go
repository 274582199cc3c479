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
	"time"

	"github.com/codali-dev/codali/pkg/activity"
	"github.com/codali-dev/codali/pkg/answers"
	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/artifacts"
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
}

// New returns the builder's handler.
func New(ctx context.Context, d *app.Deps) (worker.Handler, error) {
	if err := d.Workspaces.CheckGit(ctx); err != nil {
		return nil, err
	}
	if _, _, err := d.Model(events.ServiceBuilder); err != nil {
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

// Handle turns a `plan` event into a `built` event.
func (s *Service) Handle(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
	var pd events.PlanData
	if err := events.DecodeData(in, &pd); err != nil {
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
	_, route, err := s.d.Model(events.ServiceBuilder)
	if err != nil {
		return nil, worker.Permanent(err)
	}
	wsDone := worker.Step(ctx, worker.StepWorkspace)
	ws, err := s.d.Workspaces.Prepare(ctx, in.RunID(), in.Attempt, events.ServiceBuilder, pd.Run.Repo())
	wsDone()
	if err != nil {
		if errors.Is(err, workspace.ErrRepo) && !errors.Is(err, workspace.ErrClone) {
			return nil, worker.Permanent(err)
		}
		return nil, err
	}
	defer s.d.CloseWorkspace(ws)
	x := &executor{ws: ws, policy: s.d.Policy, policyHash: s.d.PolicyHash, redactor: s.d.Redactor,
		runCommand: s.d.RunCommand, cmdTimeout: time.Duration(s.d.Config.Critic.VerifyTimeoutMS) * time.Millisecond,
		retrieval: s.newRetrieval(pd.Run)}

	proto := newProtocol(ws.Dir, in, pd, route.Route.Model, s.d.Now, s.d.Redactor, s.d.Log, x.readable, s.d.Config.Context)
	x.confirmDestructive = proto.confirmDestructive
	tools, summary, usage, err := s.loop(ctx, in, pd, bundle, x, proto)
	if err != nil {
		return nil, err
	}
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
	tools = append(tools, changegate.CheckDiff(s.d.Policy, s.d.PolicyHash, s.d.Redactor, change, change.Diff)...)
	if err := s.d.Artifacts.OffloadDiff(ctx, in.RunID(), in.Attempt, &change, s.d.Config.Events.ArtifactThresholdBytes); err != nil {
		return nil, err
	}
	run := pd.Run
	run.Usage = events.MergeUsage(run.Usage, usage...)
	blocked, warnings := events.GateCounts(tools)
	var files []string
	for _, f := range change.Files {
		files = append(files, f.Path)
	}
	run.Codex, err = runcodex.Encode(runcodex.Facts{RunID: in.RunID(), Project: run.Project, Phase: events.ServiceBuilder,
		Attempt: in.Attempt, MaxRetries: run.MaxRetries, Steps: len(pd.Plan.Steps), Actions: []string{"context", "plan", "edit"},
		Files: files, Failures: len(run.Failures), ToolCalls: len(tools), Blocked: blocked, Warnings: warnings, PolicyHash: s.d.PolicyHash})
	if err != nil {
		return nil, worker.Permanent(err)
	}
	out, err := in.Follow(events.KindBuilt, in.Attempt, events.SourceFor(events.ServiceBuilder), s.d.Now(), events.BuiltData{
		Run: run, BundleRef: pd.BundleRef, Plan: pd.Plan, Change: change, Tools: tools, Summary: clip(s.d.Redactor.String(summary), maxSummary), Usage: usage,
		Cognition: proto.recordWithin(s.d.Config.Events.MaxEventBytes / 4),
	})
	if err != nil {
		return nil, worker.Permanent(err)
	}
	return []events.Envelope{out}, nil
}

// loop runs the tool loop until the model says it is done or a limit is
// reached (which is not an error: the critic judges what was built). Each
// turn must satisfy the turn schema, with one repair turn; a turn that
// still does not is a contract failure, which ends the run.
func (s *Service) loop(ctx context.Context, in events.Envelope, pd events.PlanData, bundle *events.ContextBundle, x *executor, proto *protocol) ([]events.ToolExecution, string, []events.ModelUsage, error) {
	lim := s.d.Config.Limits
	msgs := prompt(pd, bundle, s.d.Config.Librarian.PromptTokens)
	learned, err := s.learning(ctx, in.RunID(), pd, bundle)
	if err != nil {
		return nil, "", nil, err
	}
	msgs[len(msgs)-1].Content += learned
	var tools []events.ToolExecution
	var usage []events.ModelUsage
	for step := 1; step <= lim.MaxSteps; step++ {
		var t turn
		a, err := s.d.Ask(ctx, llm.Request{Phase: events.ServiceBuilder, RunID: in.RunID(), Attempt: in.Attempt, Step: step, Messages: msgs},
			answers.Turn(), func(doc []byte) error {
				var perr error
				t, perr = parseTurn(string(doc))
				return perr
			})
		usage = events.MergeUsage(usage, a.Usage...)
		switch {
		case err == nil:
		case errors.Is(err, llm.ErrContract):
			return nil, "", usage, worker.Permanent(events.WithUsage(fmt.Errorf("step %d: %w", step, err), usage))
		case errors.Is(err, llm.ErrRejected), errors.Is(err, llm.ErrInvalidConfig), errors.Is(err, config.ErrInvalid):
			return nil, "", usage, worker.Permanent(events.WithUsage(fmt.Errorf("model rejected step %d: %w", step, err), usage))
		default:
			return nil, "", usage, fmt.Errorf("model unavailable at step %d: %w", step, err)
		}
		msgs = a.Messages
		proto.thought(t.Thought)
		var results []string
		for _, c := range t.ToolCalls {
			if len(tools) >= lim.MaxToolCalls {
				return tools, fmt.Sprintf("stopped: tool call limit (%d) reached", lim.MaxToolCalls), usage, nil
			}
			id, hazards := proto.before(c.Tool, c.Args)
			toolDone := worker.Step(ctx, worker.StepTools)
			actx, end := activity.Begin(ctx, activity.Event{Kind: activity.Tool, Name: c.Tool, Step: step})
			rec, out := x.execute(actx, step, c.Tool, c.Args)
			end(toolErr(rec))
			toolDone()
			sig := proto.after(id, rec)
			tools = append(tools, rec)
			if hazards != "" {
				out += "\n" + hazards
			}
			results = append(results, fmt.Sprintf("[%s] %s", c.Tool, out))
			if proto.spin(step, sig) {
				return tools, "stopped: spinning: " + proto.stopDetail, usage, nil
			}
		}
		if t.Done {
			return tools, t.Summary, usage, nil
		}
		if w := proto.takeWarning(); w != "" {
			results = append(results, w)
		}
		if len(results) == 0 {
			results = append(results, "No tool calls and not done. Call tools, or answer {\"done\": true, \"summary\": …}.")
		}
		msgs = append(msgs, llm.Message{Role: "user", Content: strings.Join(results, "\n\n")})
	}
	return tools, fmt.Sprintf("stopped: step limit (%d) reached", lim.MaxSteps), usage, nil
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
