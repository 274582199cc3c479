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

// Collector gathers the references of the exchanges made during one
// handling. Safe for concurrent use.
type Collector struct {
	mu   sync.Mutex
	refs []events.ExchangeRef
}

// Refs returns the references collected so far, in call order.
func (c *Collector) Refs() []events.ExchangeRef {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]events.ExchangeRef(nil), c.refs...)
}

func (c *Collector) add(r events.ExchangeRef) {
	c.mu.Lock()
	c.refs = append(c.refs, r)
	c.mu.Unlock()
}

type collectorKey struct{}

// WithCollector returns a context whose model calls, made through a
// Recorder, are collected into c.
func WithCollector(ctx context.Context, c *Collector) context.Context {
	return context.WithValue(ctx, collectorKey{}, c)
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
	// The record is stored even when the call was interrupted: the history
	// then shows what was asked.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	ref, perr := r.store.Put(sctx, Prefix, raw)
	if perr != nil {
		r.log.Warn("could not store a model exchange", "run_id", req.RunID, "phase", req.Phase, "err", perr)
		if err != nil {
			return resp, err
		}
		return llm.Response{}, fmt.Errorf("%w: could not record the model exchange: %w", llm.ErrUnavailable, perr)
	}
	if c := collectorFrom(ctx); c != nil {
		c.add(events.ExchangeRef{Hash: rec.Hash, Step: req.Step, Failed: err != nil, Ref: ref})
	}
	return resp, err
}
