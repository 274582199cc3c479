package app

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/exchange"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/worker"
)

// recordModel wraps a provider so that every exchange is kept as an
// artifact (redacted) and collected for the handler's event.
func (d *Deps) recordModel(p llm.Provider) llm.Provider {
	if d.Artifacts == nil {
		return p
	}
	return exchange.NewRecorder(p, d.Artifacts, d.redactText(), d.Log)
}

// recordExchanges wraps a phase handler: the model exchanges it makes are
// referenced from the events it produces; when it fails they are kept for
// the failed event the runtime publishes if it ends the run
// (completeFailure). The records are stored while the handler goes on
// (a deferred collector); the outputs leave only once every record is
// stored, and a record that could not be stored fails the handling
// (transiently: the event is handled again).
func (d *Deps) recordExchanges(service string, h worker.Handler) worker.Handler {
	return func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		col := &exchange.Collector{Deferred: true}
		outs, err := h(exchange.WithCollector(ctx, col), in)
		refs, serr := col.Wait()
		if err == nil && serr != nil {
			outs, err = nil, serr
		}
		if err != nil {
			// Kept for the failed event, should the runtime end the run
			// (a permanent error, or the last delivery).
			if len(refs) > 0 {
				d.failedExchanges.put(service, in.RunID(), in.Attempt, refs)
			}
			return outs, err
		}
		d.failedExchanges.take(service, in.RunID(), in.Attempt)
		for i, out := range outs {
			with, werr := events.WithExchanges(out, refs)
			if errors.Is(werr, events.ErrHasExchanges) {
				// The handler referenced them itself (the builder's
				// park, which it stores with them).
				continue
			}
			if werr != nil || !with.Fits(d.Config.Events.MaxEventBytes) {
				d.Log.Warn("model exchanges not referenced from the event", "run_id", in.RunID(), "event", out.ID, "exchanges", len(refs), "err", werr)
				continue
			}
			outs[i] = with
		}
		return outs, nil
	}
}

// maxPendingExchanges bounds the failed handlings kept for their failed
// event; the oldest is dropped beyond it.
const maxPendingExchanges = 256

// pendingExchanges holds the exchanges of failed handlings by service, run
// and attempt. Safe for concurrent use.
type pendingExchanges struct {
	mu    sync.Mutex
	refs  map[string][]events.ExchangeRef
	order []string
}

func pendingKey(service, runID string, attempt int) string {
	return service + "\x00" + runID + "\x00" + strconv.Itoa(attempt)
}

func (p *pendingExchanges) put(service, runID string, attempt int, refs []events.ExchangeRef) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.refs == nil {
		p.refs = map[string][]events.ExchangeRef{}
	}
	k := pendingKey(service, runID, attempt)
	if _, ok := p.refs[k]; !ok {
		p.order = append(p.order, k)
	}
	p.refs[k] = refs
	for len(p.order) > maxPendingExchanges {
		delete(p.refs, p.order[0])
		p.order = p.order[1:]
	}
}

func (p *pendingExchanges) take(service, runID string, attempt int) []events.ExchangeRef {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := pendingKey(service, runID, attempt)
	refs, ok := p.refs[k]
	if !ok {
		return nil
	}
	delete(p.refs, k)
	for i, o := range p.order {
		if o == k {
			p.order = append(p.order[:i], p.order[i+1:]...)
			break
		}
	}
	return refs
}
