package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/budget"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/progress"
	"github.com/codali-dev/codali/pkg/runcodex"
	"github.com/codali-dev/codali/pkg/worker"
)

// Component is one service that can be hosted: its name (also its durable
// consumer) and a constructor for its handler.
type Component struct {
	// Name is the service name, one of the events.Service* constants.
	Name string
	// NewHandler builds the service's handler from the shared dependencies.
	NewHandler func(ctx context.Context, d *Deps) (worker.Handler, error)
}

// RunComponents runs one worker runtime per component until ctx is done,
// then drains them all and returns. Each runtime's readiness is added to
// health. It returns the first error of a runtime that stopped on its own
// (the others are then stopped too).
func RunComponents(ctx context.Context, d *Deps, comps []Component, metrics *worker.Metrics, health *worker.Health) error {
	// Workspaces' background work (ready copies, removals) ends before
	// this returns.
	defer d.Workspaces.Wait()
	var runs *audit.Runs
	opening := &Startup{}
	health.Add("runs", opening.Ready)
	err := bus.Retry(ctx, d.Log, "opening run summaries", bus.RetryPolicy{Permanent: notTransient}, opening.Report, func(ctx context.Context) error {
		var err error
		runs, err = audit.OpenRuns(ctx, d.JS)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil // shut down while starting
		}
		return err
	}
	opening.Done()
	pub := progress.NewPublisher(d.JS.Conn(), 0, d.redactText(), d.Log)
	defer pub.Close()
	runtimes := make([]*worker.Runtime, 0, len(comps))
	for _, c := range comps {
		// Until its runtime consumes, the component's readiness says
		// what it waits for.
		st := &Startup{}
		health.Add(c.Name, st.Ready)
		var h worker.Handler
		err := bus.Retry(ctx, d.Log, "starting "+c.Name, bus.RetryPolicy{Permanent: notTransient}, st.Report, func(ctx context.Context) error {
			var err error
			h, err = c.NewHandler(ctx, d)
			return err
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil // shut down while starting
			}
			return fmt.Errorf("could not start %s: %w", c.Name, err)
		}
		var guard worker.Guard
		if c.Name != events.ServiceRecorder {
			h = redactActivities(d.redactText(), d.traceHandler(c.Name, progressHandler(pub, c.Name, skipEnded(runs, d.Log, c.Name, d.recordExchanges(c.Name, h)))))
			if d.Claims != nil {
				guard = d.Claims // the recorder records refusals instead
			}
		}
		rt, err := worker.New(d.JS, worker.Config{
			Service:         c.Name,
			HandlerTimeout:  d.Config.Limits.Timeout(),
			DrainTimeout:    time.Duration(d.Config.Limits.DrainTimeoutMS) * time.Millisecond,
			MaxEventBytes:   d.Config.Events.MaxEventBytes,
			EndRunOnFailure: c.Name != events.ServiceRecorder,
			CompleteFailure: d.completeFailure(c.Name),
			// The runtime's failed event follows the handling's trace
			// context, not an agent's under "link".
			FailureTraceParent: d.handedOnTraceParent,
			Redact:             d.redactText(),
			Concurrency:        concurrencyFor(c.Name),
			Guard:              guard,
			MsgIDs:             d.MsgIDs,
		}, h, worker.WithLogger(d.Log), worker.WithMetrics(metrics), worker.WithClock(d.Now))
		if err != nil {
			return fmt.Errorf("could not configure %s: %w", c.Name, err)
		}
		health.Add(c.Name, rt.Ready)
		runtimes = append(runtimes, rt)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, len(runtimes))
	for i, rt := range runtimes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := rt.Run(ctx); err != nil {
				errs[i] = fmt.Errorf("%s: %w", comps[i].Name, err)
				cancel()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// concurrencyFor is how many events a service handles at once: the
// recorder more (its work is short, and it serialises per run itself), the
// phases a few.
func concurrencyFor(service string) int {
	if service == events.ServiceRecorder {
		return 8
	}
	return 4
}

// Pricing is the per-model prices of service's model route (none when
// the route does not resolve: then its model calls failed before they
// spent anything).
func (d *Deps) Pricing(service string) llm.Pricing {
	r, err := d.Config.Route(service, d.Getenv)
	if err != nil {
		return nil
	}
	return r.Provider.Pricing
}

// completeFailure gives a failed event the runtime publishes the run's
// RL4-CODEX payload at integrity red, so every terminal event carries a
// decodable payload that reflects its verdict (the runtime redacts its
// reason: worker.Config.Redact). Such a failure (an error, a malformed
// or invalid request) is no failed verification: the payload counts only
// the verifications that failed on earlier attempts, so a request
// rejected before anything ran carries no verify-failure, retry pattern
// or replan.
func (d *Deps) completeFailure(service string) func(runID string, attempt int, v *events.VerdictData) {
	return func(runID string, attempt int, v *events.VerdictData) {
		v.Exchanges = d.failedExchanges.take(service, runID, attempt)
		// The failed phase's own model use (events.WithUsage) counts in the
		// run's spend, as its output event would have carried it.
		v.Run.Spend = v.Run.Spend.With(service, budget.OfUsage(v.Usage, d.Pricing(service)))
		payload, err := runcodex.Encode(runcodex.Facts{RunID: runID, Project: v.Run.Project, Phase: service, Attempt: attempt,
			MaxRetries: v.Run.MaxRetries, Actions: []string{"fail"}, Failures: len(v.Run.Failures),
			Integrity: events.IntegrityRed, PolicyHash: d.PolicyHash})
		if err != nil {
			d.Log.Warn("could not encode the failed run's codex payload", "run_id", runID, "err", err)
			return
		}
		v.Run.Codex = payload
	}
}
