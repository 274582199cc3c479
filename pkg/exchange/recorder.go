package exchange

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
)

// Putter stores an artifact content-addressed under a prefix
// (artifacts.Store implements it).
type Putter interface {
	Put(ctx context.Context, prefix string, data []byte) (events.ArtifactRef, error)
}

// newPutter is a Putter that can also store content that is new by
// construction without first looking for it (artifacts.Store.PutNew): an
// exchange's record carries its start time, so it is.
type newPutter interface {
	PutNew(ctx context.Context, prefix string, data []byte) (events.ArtifactRef, error)
}

// Collector gathers the references of the exchanges made during one
// handling. Safe for concurrent use.
//
// A Deferred collector lets model calls return before their records are
// stored: each record is stored in the background while the handler
// goes on, and Wait reports whether every one was. Whoever hands the
// references on must call Wait first, so that no reference leaves before
// its record is stored.
type Collector struct {
	// Deferred stores records in the background (see Wait).
	Deferred bool

	mu      sync.Mutex
	slots   []slot
	err     error
	pending sync.WaitGroup
}

// slot is one exchange in call order: its reference once its record is
// stored.
type slot struct {
	ref    events.ExchangeRef
	stored bool
}

// Refs waits for the records being stored and returns the references of
// the stored ones, in call order.
func (c *Collector) Refs() []events.ExchangeRef {
	refs, _ := c.Wait()
	return refs
}

// Wait waits for the records being stored and returns the references of
// the stored ones, in call order, and an error wrapping llm.ErrUnavailable
// when the record of a call that succeeded could not be stored (a
// deferred collector's calls do not fail for it themselves). A failed
// call's record that could not be stored is left out, as a direct call
// leaves it out and returns its own error.
func (c *Collector) Wait() ([]events.ExchangeRef, error) {
	c.pending.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	var refs []events.ExchangeRef
	for _, s := range c.slots {
		if s.stored {
			refs = append(refs, s.ref)
		}
	}
	return refs, c.err
}

// reserve takes the next slot in call order.
func (c *Collector) reserve() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slots = append(c.slots, slot{})
	return len(c.slots) - 1
}

// fill records the outcome of storing slot i's record.
func (c *Collector) fill(i int, r events.ExchangeRef, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		if c.err == nil {
			c.err = err
		}
		return
	}
	c.slots[i] = slot{ref: r, stored: true}
}

type collectorKey struct{}

// WithCollector returns a context whose model calls, made through a
// Recorder, are collected into c.
func WithCollector(ctx context.Context, c *Collector) context.Context {
	return context.WithValue(ctx, collectorKey{}, c)
}

// Collected waits for the records of the exchanges made so far under
// ctx's collector (WithCollector) and returns their references, in call
// order, with Wait's error; nil and no error when ctx has no collector.
// A handler that hands references on before it returns (the builder
// stores them with a park) calls it.
func Collected(ctx context.Context) ([]events.ExchangeRef, error) {
	c := collectorFrom(ctx)
	if c == nil {
		return nil, nil
	}
	return c.Wait()
}

func collectorFrom(ctx context.Context) *Collector {
	c, _ := ctx.Value(collectorKey{}).(*Collector)
	return c
}

// storeTimeout bounds storing one record.
const storeTimeout = 30 * time.Second

// Recorder is an llm.Provider decorator that records every exchange.
type Recorder struct {
	inner  llm.Provider
	store  Putter
	redact func(string) string
	log    *slog.Logger
	now    func() time.Time
}

// NewRecorder wraps inner. redact (nil: none) is applied to everything
// stored; log (nil: slog.Default) reports records that could not be stored.
func NewRecorder(inner llm.Provider, store Putter, redact func(string) string, log *slog.Logger) *Recorder {
	if log == nil {
		log = slog.Default()
	}
	if redact == nil {
		redact = func(s string) string { return s }
	}
	return &Recorder{inner: inner, store: store, redact: redact, log: log, now: time.Now}
}

// Complete calls the wrapped provider and records the exchange, whatever
// its outcome. It returns the wrapped provider's answer and error as they
// are. When the record cannot be stored the call fails with an error
// wrapping llm.ErrUnavailable: an exchange the history cannot show is not
// handed on.
func (r *Recorder) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	started := r.now()
	resp, err := r.inner.Complete(ctx, req)
	rec := Record{Version: Version, Phase: req.Phase, RunID: req.RunID, Attempt: req.Attempt, Step: req.Step,
		Request: Canonical(req, r.redact), Started: started.UTC(), DurationMS: r.now().Sub(started).Milliseconds()}
	rec.Hash = rec.Request.Hash()
	if err != nil {
		rec.Error = r.redact(err.Error())
	} else {
		rec.Response = &Response{Content: r.redact(resp.Content), Model: resp.Model, Usage: resp.Usage}
		if resp.Duration > 0 {
			rec.DurationMS = resp.Duration.Milliseconds()
		}
	}
	raw, merr := json.Marshal(rec)
	if merr != nil {
		return llm.Response{}, fmt.Errorf("%w: could not encode the exchange record: %w", llm.ErrUnavailable, merr)
	}
	c := collectorFrom(ctx)
	if c == nil || !c.Deferred {
		ref, perr := r.keepRecord(ctx, req, raw)
		if perr != nil {
			if err != nil {
				return resp, err
			}
			return llm.Response{}, perr
		}
		if c != nil {
			c.fill(c.reserve(), events.ExchangeRef{Hash: rec.Hash, Step: req.Step, Failed: err != nil, Ref: ref}, nil)
		}
		return resp, err
	}
	i := c.reserve()
	c.pending.Add(1)
	go func() {
		defer c.pending.Done()
		ref, perr := r.keepRecord(ctx, req, raw)
		if perr != nil && err != nil {
			// As for a direct call, a failed call's own error stands
			// (the handler has seen it and may have gone on without
			// its answer): its record is only left unreferenced.
			return
		}
		c.fill(i, events.ExchangeRef{Hash: rec.Hash, Step: req.Step, Failed: err != nil, Ref: ref}, perr)
	}()
	return resp, err
}

// keepRecord stores one encoded record, even when the call was interrupted
// (the history then shows what was asked); its error wraps
// llm.ErrUnavailable: an exchange the history cannot show is not handed
// on.
func (r *Recorder) keepRecord(ctx context.Context, req llm.Request, raw []byte) (events.ArtifactRef, error) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	var ref events.ArtifactRef
	var err error
	if np, ok := r.store.(newPutter); ok {
		ref, err = np.PutNew(sctx, Prefix, raw)
	} else {
		ref, err = r.store.Put(sctx, Prefix, raw)
	}
	if err != nil {
		r.log.Warn("could not store a model exchange", "run_id", req.RunID, "phase", req.Phase, "err", err)
		return events.ArtifactRef{}, fmt.Errorf("%w: could not record the model exchange: %w", llm.ErrUnavailable, err)
	}
	return ref, nil
}
