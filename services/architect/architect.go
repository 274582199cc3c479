// Package architect is phase 2 of the Codali pipeline: it asks the
// configured model for a plan — steps, target files, risks and the
// verification strategy, no code — for a new run or for a retry after the
// critic rejected an attempt, and records the plan's steps in the project's
// goal tree.
package architect

import (
	"context"
	"errors"
	"fmt"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/budget"
	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/runcodex"
	"github.com/codali-dev/codali/pkg/worker"
)

// maxAsks bounds how often the model is asked for a valid plan per event.
const maxAsks = 3

// Component is the architect as a hostable component.
func Component() app.Component {
	return app.Component{Name: events.ServiceArchitect, NewHandler: New}
}

// Service is the architect.
type Service struct {
	d *app.Deps
}

// New returns the architect's handler.
func New(_ context.Context, d *app.Deps) (worker.Handler, error) {
	if _, _, err := d.Model(events.ServiceArchitect); err != nil {
		return nil, err
	}
	return (&Service{d: d}).Handle, nil
}

// input is what the architect needs from a context or retry event.
type input struct {
	run    events.Run
	bundle *events.ContextBundle
	// inline is the bundle as the context event carried it inline (nil
	// when it carried only a reference): only that copy is passed on
	// inline, so an offloaded bundle stays offloaded.
	inline    *events.ContextBundle
	bundleRef *events.ArtifactRef
	retry     *events.RetryData
}

// Handle turns a `context` or `retry` event into a `plan` event.
func (s *Service) Handle(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
	inp, err := s.read(ctx, in)
	if err != nil {
		return nil, err
	}
	provider, route, err := s.d.Model(events.ServiceArchitect)
	if err != nil {
		return nil, worker.Permanent(err)
	}
	plan, spent, forked, err := forkedPlan(inp.run, in.Attempt)
	if err != nil {
		return nil, worker.Permanent(err)
	}
	if !forked {
		plan, spent, err = s.ask(ctx, provider, route.Route.Model, route.Route.Temperature, route.Provider.Pricing, in, prompt(inp, s.d.Config.Librarian.PromptTokens))
		if err != nil {
			return nil, err
		}
	}
	run := inp.run
	run.Spend = run.Spend.With(events.ServiceArchitect, spent)
	res, err := s.d.PM.Update(ctx, run.Project, func(cur cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		return GoalOps(cur, in.RunID(), in.Attempt, plan), nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("could not record the plan in the project state: %w", err)
	}
	run.PMRev = res.Rev
	actions := []string{"context", "plan"}
	if in.Attempt > 1 {
		actions = append(actions, "retry")
	}
	run.Codex, err = runcodex.Encode(runcodex.Facts{RunID: in.RunID(), Project: run.Project, Phase: events.ServiceArchitect,
		Attempt: in.Attempt, MaxRetries: run.MaxRetries, Steps: len(plan.Steps), Actions: actions,
		Files: plan.TargetFiles, Failures: len(run.Failures), PolicyHash: s.d.PolicyHash})
	if err != nil {
		return nil, worker.Permanent(err)
	}
	data := events.PlanData{Run: run, Plan: plan, Bundle: inp.inline, BundleRef: inp.bundleRef}
	out, err := in.Follow(events.KindPlan, in.Attempt, events.SourceFor(events.ServiceArchitect), s.d.Now(), data)
	if err != nil {
		return nil, worker.Permanent(err)
	}
	if data.Bundle != nil && data.BundleRef != nil {
		if !out.Fits(s.d.Config.Events.MaxEventBytes) {
			data.Bundle = nil // the builder fetches it by reference
			if out, err = in.Follow(events.KindPlan, in.Attempt, events.SourceFor(events.ServiceArchitect), s.d.Now(), data); err != nil {
				return nil, worker.Permanent(err)
			}
		}
	}
	return []events.Envelope{out}, nil
}

func (s *Service) read(ctx context.Context, in events.Envelope) (input, error) {
	kind, _ := in.Kind()
	var inp input
	switch kind {
	case events.KindContext:
		var d events.ContextData
		if err := events.DecodeData(in, &d); err != nil {
			return inp, worker.Permanent(err)
		}
		inp.run, inp.bundle, inp.inline, inp.bundleRef = d.Run, d.Bundle, d.Bundle, d.BundleRef
	case events.KindRetry:
		var d events.RetryData
		if err := events.DecodeData(in, &d); err != nil {
			return inp, worker.Permanent(err)
		}
		inp.run, inp.bundleRef, inp.retry = d.Run, d.BundleRef, &d
	default:
		return inp, worker.Permanentf("architect does not handle %s events", kind)
	}
	b, err := s.d.Artifacts.LoadBundle(ctx, inp.bundle, inp.bundleRef)
	if err != nil {
		err = fmt.Errorf("could not load the context bundle: %w", err)
		if artifacts.IsLost(err) {
			return inp, worker.Permanent(err)
		}
		return inp, err
	}
	inp.bundle = b
	return inp, nil
}

// ask requests a plan, re-asking with the validation error when the answer
// is not a valid plan. Model errors that cannot succeed on retry are
// permanent; others are returned for redelivery with backoff.
func (s *Service) ask(ctx context.Context, p llm.Provider, model string, temp float64, pricing llm.Pricing, in events.Envelope, msgs []llm.Message) (events.Plan, events.Spend, error) {
	var lastErr error
	var spent events.Spend
	for try := 1; try <= maxAsks; try++ {
		modelDone := worker.Step(ctx, worker.StepModel)
		req := llm.Request{Phase: events.ServiceArchitect, RunID: in.RunID(), Attempt: in.Attempt,
			Step: try, Model: model, Temperature: temp, Format: "json", Messages: msgs}
		resp, err := p.Complete(ctx, req)
		modelDone()
		if err != nil {
			if errors.Is(err, llm.ErrRejected) {
				return events.Plan{}, spent, worker.Permanent(fmt.Errorf("model rejected the plan request: %w", err))
			}
			return events.Plan{}, spent, fmt.Errorf("model unavailable: %w", err)
		}
		spent = spent.Plus(budget.Use(req, resp, pricing))
		plan, err := ParsePlan(resp.Content)
		if err == nil {
			return plan, spent, nil
		}
		lastErr = err
		msgs = append(msgs, llm.Message{Role: "assistant", Content: resp.Content},
			llm.Message{Role: "user", Content: "That is not a valid plan: " + err.Error() + ". Answer again with only the JSON object."})
	}
	return events.Plan{}, spent, worker.Permanent(fmt.Errorf("model gave no valid plan in %d answers: %w", maxAsks, lastErr))
}
