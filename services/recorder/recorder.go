// Package recorder is Codali's audit service: it folds every run event
// into the run's state document and appends the changes to the run's RAO
// history (delta-compressed, checkpointed, policy-tagged, hash-chained),
// and keeps each run's summary for `codali runs`.
package recorder

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/rao/raostore"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/prometheus/client_golang/prometheus"
)

// Component is the recorder as a hostable component.
func Component() app.Component {
	return app.Component{Name: events.ServiceRecorder, NewHandler: New}
}

// Service is the recorder.
type Service struct {
	rec *audit.Recorder
	// claims says which request each run belongs to.
	claims interface {
		Admit(ctx context.Context, e events.Envelope) error
	}
	runs  *audit.Runs
	locks *keyLock
	order *streamOrder
	// finished counts runs by how they ended (nil without a registry).
	finished *prometheus.CounterVec
}

// conflictRetries is how often a history conflict is retried at once
// (with a fresh load) before the event is handed back for redelivery.
const conflictRetries = 3

// New opens the history store and the run summaries and returns the
// recorder's handler.
func New(ctx context.Context, d *app.Deps) (worker.Handler, error) {
	store, err := raostore.Open(ctx, d.JS)
	if err != nil {
		return nil, err
	}
	runs, err := audit.OpenRuns(ctx, d.JS)
	if err != nil {
		return nil, err
	}
	var finished *prometheus.CounterVec
	if d.Registerer != nil {
		finished = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "codali", Name: "runs_finished_total",
			Help: "Runs that ended, by status (passed, failed, cancelled) and integrity (green, amber, red).",
		}, []string{"status", "integrity"})
		if err := d.Registerer.Register(finished); err != nil {
			return nil, fmt.Errorf("could not register recorder metrics: %w", err)
		}
	}
	s := &Service{
		finished: finished,
		rec: &audit.Recorder{Store: store, CheckpointEvery: d.Config.RAO.CheckpointEvery, MaxEvents: d.Config.RAO.MaxEvents,
			PolicyHash: d.PolicyHash, ContractHash: d.ContractHash, Redactor: d.Redactor, Now: d.Now},
		runs:   runs,
		locks:  newKeyLock(),
		order:  newStreamOrder(d.JS, d.Config.Events.MaxEventBytes),
		claims: d.Claims,
	}
	return s.Handle, nil
}

// Handle records one run event. It produces no events. The run's earlier
// events in the work stream are folded first, so the history follows the
// stream's order. A history conflict (another writer appended first) is
// transient: the event is redelivered and the steps already stored are
// skipped.
func (s *Service) Handle(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
	runID := in.RunID()
	delivery, inStream := worker.DeliveryFrom(ctx)
	if inStream {
		s.order.delivered(runID, delivery.StreamSeq, delivery.Deliveries <= 1)
	}
	// (A decision whose data is invalid folds into its refusal.)
	steps, err := audit.Fold(in)
	if err != nil {
		if inStream {
			s.order.unfoldable(runID, delivery.StreamSeq)
		}
		return nil, worker.Permanent(fmt.Errorf("could not fold %s: %w", in.ID, err))
	}
	unlock := s.locks.lock(runID)
	defer unlock()
	// Three independent reads, each a round trip to the server when it is
	// not answered from memory (a run's first event, a recorder that just
	// started): the run's claim, its earlier events still in the work
	// stream, and its stored history. They are made at once.
	var (
		wg                sync.WaitGroup
		before            []audit.Step
		orderErr, loadErr error
	)
	if inStream && s.order.behind(runID, delivery.StreamSeq) {
		wg.Go(func() { before, orderErr = s.order.predecessors(ctx, runID, delivery.StreamSeq) })
	}
	if !s.rec.Cached(runID) {
		wg.Go(func() { loadErr = s.rec.Preload(ctx, runID) })
	}
	admitErr := s.claims.Admit(ctx, in)
	wg.Wait()
	// A refused event waits for its earlier events like any other: its
	// refusal is recorded after them, so a read error is returned first.
	refused := errors.Is(admitErr, events.ErrConflict)
	switch {
	case admitErr != nil && !refused:
		return nil, admitErr // the claims bucket is unreachable: retried
	case orderErr != nil:
		return nil, orderErr // transient: redelivered with backoff
	case loadErr != nil:
		return nil, loadErr // transient: redelivered with backoff
	case refused:
		// Not this run's event: recorded as refused, never folded in.
		steps = []audit.Step{audit.Refuse(in, admitErr)}
	}
	steps = append(before, steps...)
	var c audit.Change
	for try := 0; ; try++ {
		c, err = s.rec.RecordChange(ctx, runID, steps)
		if err == nil {
			break
		}
		if !errors.Is(err, raostore.ErrConflict) || try == conflictRetries {
			return nil, err // transient: redelivered with backoff
		}
	}
	st := c.State
	wasRunning := c.Prev == audit.StatusRunning
	if inStream {
		s.order.folded(runID, delivery.StreamSeq, st.Terminal())
	}
	if err := s.runs.Put(ctx, c.Summary()); err != nil {
		return nil, err
	}
	if s.finished != nil && wasRunning && st.Terminal() {
		integrity := ""
		if st.Verdict != nil {
			integrity = st.Verdict.Integrity
		}
		s.finished.WithLabelValues(st.Status, integrity).Inc()
	}
	return nil, nil
}
