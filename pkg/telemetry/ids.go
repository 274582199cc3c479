package telemetry

import (
	"context"
	"crypto/rand"
	"crypto/sha256"

	"go.opentelemetry.io/otel/trace"
)

// RunTraceID is the trace id of a run that arrived without a trace
// context: derived from the run id, so every phase and every redelivery
// joins the same trace.
func RunTraceID(runID string) trace.TraceID {
	sum := sha256.Sum256([]byte("codali-run:" + runID))
	var id trace.TraceID
	copy(id[:], sum[:16])
	return id
}

type runTraceKey struct{}

// WithRunTrace returns a context whose next root span gets the run's
// trace id (RunTraceID) instead of a random one.
func WithRunTrace(ctx context.Context, runID string) context.Context {
	return context.WithValue(ctx, runTraceKey{}, RunTraceID(runID))
}

// runIDs is the SDK's ID generator: random ids, except for root spans of
// a context made by WithRunTrace.
type runIDs struct{}

func (runIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if id, ok := ctx.Value(runTraceKey{}).(trace.TraceID); ok && id.IsValid() {
		return id, randomSpanID()
	}
	var id trace.TraceID
	for !id.IsValid() {
		_, _ = rand.Read(id[:]) // crypto/rand.Read never fails
	}
	return id, randomSpanID()
}

func (runIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID { return randomSpanID() }

func randomSpanID() trace.SpanID {
	var id trace.SpanID
	for !id.IsValid() {
		_, _ = rand.Read(id[:])
	}
	return id
}
