package app

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/worker"
)

// skipEnded wraps a phase handler so that events of a run that has already
// ended — an operator cancelled it, or it failed elsewhere — are
// acknowledged without work, and so that a handler that was working when
// the run ended drops its outputs instead of ending the run a second time.
// The run summaries are kept by the recorder, so the check is as current as
// the recorder; if a summary cannot be read the event is handled normally.
// On a cluster a lagging replica may answer with an older summary: a run
// only goes from running to ended, so that can only have an ended run's
// event handled (as before the recorder saw the end), and the next poll
// sees the end.
func skipEnded(runs *audit.Runs, log *slog.Logger, service string, h worker.Handler) worker.Handler {
	ended := func(ctx context.Context, in events.Envelope, when string) bool {
		s, err := runs.Get(ctx, in.RunID())
		if err != nil || s.Status == audit.StatusRunning {
			return false
		}
		log.Info("run has ended; dropping work", "service", service, "run_id", in.RunID(), "event", in.Type, "status", s.Status, "when", when)
		return true
	}
	return func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		if ended(ctx, in, "before") {
			return nil, nil
		}
		// While the handler works, watch for the run ending (an operator
		// cancel) and interrupt it: model calls and verification commands
		// stop with the context.
		hctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := make(chan struct{})
		defer close(stop)
		var interrupted atomic.Bool
		go func() {
			t := time.NewTicker(endedPoll)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					if s, err := runs.Get(ctx, in.RunID()); err == nil && s.Status != audit.StatusRunning {
						interrupted.Store(true)
						cancel()
						return
					}
				}
			}
		}()
		outs, err := h(hctx, in)
		if interrupted.Load() || ended(ctx, in, "after") {
			if interrupted.Load() {
				log.Info("run ended while being handled; work interrupted", "service", service, "run_id", in.RunID(), "event", in.Type)
			}
			return nil, nil
		}
		return outs, err
	}
}

// endedPoll is how often a running handler checks whether its run ended.
const endedPoll = time.Second
