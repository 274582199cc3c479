// Package builder is phase 3 of the Codali pipeline: in a fresh workspace
// per run and attempt it runs the model's tool loop — read, write, edit,
// delete, list, search, run — with every call passing the policy gate
// first, then hands on the resulting change as a unified diff together
// with the record of every tool call and its gate decision.
package builder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/activity"
	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/artifacts"
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
	provider, route, err := s.d.Model(events.ServiceBuilder)
	if err != nil {
		return nil, worker.Permanent(err)
	}
	ws, err := s.d.Workspaces.Prepare(ctx, in.RunID(), in.Attempt, events.ServiceBuilder, pd.Run.Request.Repo)
	if err != nil {
		if errors.Is(err, workspace.ErrRepo) && !errors.Is(err, workspace.ErrClone) {
			return nil, worker.Permanent(err)
		}
		return nil, err
	}
	defer s.d.CloseWorkspace(ws)
	x := &executor{ws: ws, policy: s.d.Policy, policyHash: s.d.PolicyHash, redactor: s.d.Redactor,
		env: workspace.CommandEnv(s.d.Getenv), cmdTimeout: time.Duration(s.d.Config.Critic.VerifyTimeoutMS) * time.Millisecond}

	tools, summary, err := s.loop(ctx, provider, route.Route.Model, route.Route.Temperature, in, pd, bundle, x)
	if err != nil {
		return nil, err
	}
	change, err := ws.Change(ctx)
	if err != nil {
		return nil, fmt.Errorf("could not take the change: %w", err)
	}
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
		Files: files, Failures: len(run.Failures), ToolCalls: len(tools), Blocked: blocked, Warnings: warnings, PolicyHash: s.d.PolicyHash})
	if err != nil {
		return nil, worker.Permanent(err)
	}
	out, err := in.Follow(events.KindBuilt, in.Attempt, events.SourceFor(events.ServiceBuilder), s.d.Now(), events.BuiltData{
		Run: run, BundleRef: pd.BundleRef, Plan: pd.Plan, Change: change, Tools: tools, Summary: s.d.Redactor.String(summary),
	})
	if err != nil {
		return nil, worker.Permanent(err)
	}
	return []events.Envelope{out}, nil
}

// loop runs the tool loop until the model says it is done or a limit is
// reached (which is not an error: the critic judges what was built).
func (s *Service) loop(ctx context.Context, p llm.Provider, model string, temp float64, in events.Envelope, pd events.PlanData, bundle *events.ContextBundle, x *executor) ([]events.ToolExecution, string, error) {
	lim := s.d.Config.Limits
	msgs := prompt(pd, bundle)
	var tools []events.ToolExecution
	for step := 1; step <= lim.MaxSteps; step++ {
		resp, err := p.Complete(ctx, llm.Request{Phase: events.ServiceBuilder, RunID: in.RunID(), Attempt: in.Attempt, Step: step,
			Model: model, Temperature: temp, Format: "json", Messages: msgs})
		if err != nil {
			if errors.Is(err, llm.ErrRejected) {
				return nil, "", worker.Permanent(fmt.Errorf("model rejected step %d: %w", step, err))
			}
			return nil, "", fmt.Errorf("model unavailable at step %d: %w", step, err)
		}
		msgs = append(msgs, llm.Message{Role: "assistant", Content: resp.Content})
		t, err := parseTurn(resp.Content)
		if err != nil {
			msgs = append(msgs, llm.Message{Role: "user", Content: "Your answer was not valid: " + err.Error() + ". Answer with one JSON object."})
			continue
		}
		var results []string
		for _, c := range t.ToolCalls {
			if len(tools) >= lim.MaxToolCalls {
				return tools, fmt.Sprintf("stopped: tool call limit (%d) reached", lim.MaxToolCalls), nil
			}
			actx, end := activity.Begin(ctx, activity.Event{Kind: activity.Tool, Name: c.Tool, Step: step})
			rec, out := x.execute(actx, step, c.Tool, c.Args)
			end(toolErr(rec))
			tools = append(tools, rec)
			results = append(results, fmt.Sprintf("[%s] %s", c.Tool, out))
		}
		if t.Done {
			return tools, t.Summary, nil
		}
		if len(results) == 0 {
			results = append(results, "No tool calls and not done. Call tools, or answer {\"done\": true, \"summary\": …}.")
		}
		msgs = append(msgs, llm.Message{Role: "user", Content: strings.Join(results, "\n\n")})
	}
	return tools, fmt.Sprintf("stopped: step limit (%d) reached", lim.MaxSteps), nil
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
