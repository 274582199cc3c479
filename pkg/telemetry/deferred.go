package telemetry

import (
	"context"
	"sync"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Deferred holds the spans of a piece of work until it is known whether
// they should be exported: Flush hands them to the exporter, Discard
// drops them. A redelivered event's handling is traced this way, so the
// spans of work that had already been published are not duplicated.
type Deferred struct {
	t        *Tracing
	provider *sdktrace.TracerProvider
	held     *holder
}

// Defer returns a Deferred whose tracer makes spans like t's.
func (t *Tracing) Defer() *Deferred {
	h := &holder{}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithSpanProcessor(h), sdktrace.WithIDGenerator(runIDs{})}
	if t.res != nil {
		opts = append(opts, sdktrace.WithResource(t.res))
	}
	return &Deferred{t: t, provider: sdktrace.NewTracerProvider(opts...), held: h}
}

// Tracer returns the deferred tracer.
func (d *Deferred) Tracer() trace.Tracer { return d.provider.Tracer(Instrumentation) }

// Flush exports the ended spans held so far.
func (d *Deferred) Flush() {
	if d.t.processor == nil {
		return
	}
	for _, s := range d.held.take() {
		d.t.processor.OnEnd(s)
	}
}

// Discard drops the spans held so far.
func (d *Deferred) Discard() { d.held.take() }

// holder is a span processor that keeps ended spans.
type holder struct {
	mu    sync.Mutex
	spans []sdktrace.ReadOnlySpan
}

func (h *holder) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

func (h *holder) OnEnd(s sdktrace.ReadOnlySpan) {
	h.mu.Lock()
	h.spans = append(h.spans, s)
	h.mu.Unlock()
}

func (h *holder) take() []sdktrace.ReadOnlySpan {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.spans
	h.spans = nil
	return s
}

func (h *holder) Shutdown(context.Context) error   { return nil }
func (h *holder) ForceFlush(context.Context) error { return nil }
