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

	"github.com/codali-dev/codali/pkg/answers"
	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/budget"
	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/runcodex"
	"github.com/codali-dev/codali/pkg/worker"
)

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
	// The run's policy (a stored one it names, or the configured one)
	// judges the acts and tags the plan; one that cannot be used ends the
	// run before any model call.
	gate, err := s.d.GateFor(ctx, in.RunID(), inp.run.Request)
	if err != nil {
		return nil, err
	}
	plan, mode, feedback, usage, answer, err := s.plan(ctx, in, inp)
	if err != nil {
		return nil, err
	}
	cortex, report := cortexOutput(answer)
	applyActs(cortex, &plan, report, actGate(gate.Policy))
	run := inp.run
	nPlan := 0
	run.Usage = events.MergeUsage(run.Usage, usage...)
	run.Spend = run.Spend.With(events.ServiceArchitect, budget.OfUsage(usage, s.d.Pricing(events.ServiceArchitect)))
	res, err := s.d.PM.Update(ctx, run.Project, func(cur cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		goals := GoalOps(cur, in.RunID(), in.Attempt, plan)
		nPlan = len(goals)
		modelGoals, modelMem := cortexOps(cur, cortex)
		return append(goals, modelGoals...), modelMem, nil
	})
	if err != nil {
		return nil, fmt.Errorf("could not record the plan in the project state: %w", err)
	}
	cortexDiagnostics(res.Diagnostics, nPlan, report)
	state := res.State
	report.State = &state
	for _, d := range report.Diagnostics {
		s.d.Log.Info("cortex output IR", "run", in.RunID(), "attempt", in.Attempt, "diagnostic", d)
	}
	run.PMRev = res.Rev
	actions := []string{"context", "plan"}
	if in.Attempt > 1 {
		actions = append(actions, "retry")
	}
	run.Codex, err = runcodex.Encode(runcodex.Facts{RunID: in.RunID(), Project: run.Project, Phase: events.ServiceArchitect,
		Attempt: in.Attempt, MaxRetries: run.MaxRetries, Steps: len(plan.Steps), Actions: actions,
		Files: plan.TargetFiles, Failures: len(run.Failures), PolicyHash: gate.Hash})
	if err != nil {
		return nil, worker.Permanent(err)
	}
	data := events.PlanData{Run: run, Plan: plan, Bundle: inp.inline, BundleRef: inp.bundleRef, Cortex: report, Mode: mode, Feedback: feedback, Usage: usage}
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
	if !out.Fits(s.d.Config.Events.MaxEventBytes) && report.State != nil {
		// The recorded Cortex state is what a run's export projects
		// goals.json from; a state too large for the event is left out
		// (the export then says so) rather than failing the run.
		report.State = nil
		report.Diagnostics = append(report.Diagnostics, "cortex state left out of the plan event: it would exceed events.maxEventBytes")
		if out, err = in.Follow(events.KindPlan, in.Attempt, events.SourceFor(events.ServiceArchitect), s.d.Now(), data); err != nil {
			return nil, worker.Permanent(err)
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

// ask requests a plan that satisfies the plan schema and the plan's own
// rules, with one repair turn (llm.CompleteJSON). A contract failure and
// other model errors that cannot succeed on retry are permanent; others
// are returned for redelivery with backoff.
// The raw answer is returned too, for the Cortex output IR it may carry.
func (s *Service) ask(ctx context.Context, in events.Envelope, msgs []llm.Message) (events.Plan, string, []events.ModelUsage, error) {
	var plan events.Plan
	var answer string
	a, err := s.d.Ask(ctx, llm.Request{Phase: events.ServiceArchitect, RunID: in.RunID(), Attempt: in.Attempt, Step: 1, Messages: msgs},
		answers.Plan(), func(doc []byte) error {
			p, err := ParsePlan(string(doc))
			plan, answer = p, string(doc)
			return err
		})
	switch {
	case err == nil:
		return plan, answer, a.Usage, nil
	case errors.Is(err, llm.ErrContract):
		return events.Plan{}, "", a.Usage, worker.Permanent(events.WithUsage(fmt.Errorf("model gave no valid plan: %w", err), a.Usage))
	case errors.Is(err, llm.ErrRejected), errors.Is(err, llm.ErrInvalidConfig), errors.Is(err, config.ErrInvalid):
		return events.Plan{}, "", a.Usage, worker.Permanent(events.WithUsage(fmt.Errorf("model rejected the plan request: %w", err), a.Usage))
	default:
		return events.Plan{}, "", a.Usage, fmt.Errorf("model unavailable: %w", err)
	}
}

// actGate is the policy gate acts are checked with (the run's policy),
// or nil without a policy.
func actGate(p *policy.Policy) func(policy.ToolCall) policy.Decision {
	if p == nil {
		return nil
	}
	return p.Evaluate
}
