package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// HeaderTraceParent is the W3C trace-context header, also set on NATS
// messages.
const HeaderTraceParent = "traceparent"

var w3c = propagation.TraceContext{}

// WithTraceParent returns ctx with the remote span context of a W3C
// traceparent value as parent. An empty or invalid value leaves ctx as
// it is.
func WithTraceParent(ctx context.Context, traceparent string) context.Context {
	if traceparent == "" {
		return ctx
	}
	return w3c.Extract(ctx, propagation.MapCarrier{HeaderTraceParent: traceparent})
}

// TraceParent is the W3C traceparent of the span in ctx ("" when there is
// no valid span).
func TraceParent(ctx context.Context) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	c := propagation.MapCarrier{}
	w3c.Inject(ctx, c)
	return c[HeaderTraceParent]
}

// TraceID is the trace id of a W3C traceparent value ("" when invalid).
func TraceID(traceparent string) string {
	sc := trace.SpanContextFromContext(WithTraceParent(context.Background(), traceparent))
	if !sc.IsValid() {
		return ""
	}
	return sc.TraceID().String()
}
