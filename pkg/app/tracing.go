package app

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/codali-dev/codali/pkg/activity"
	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/rao/raostore"
	"github.com/codali-dev/codali/pkg/telemetry"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// traceHandler wraps a handler in a span per handling, the child of the
// event's trace context (the envelope's traceparent, else the NATS
// header); an event without one starts the run's trace, whose id derives
// from the run id. The outputs carry the handling's span as their trace
// context, so a run is one trace. Activities (tool calls, checks) and
// model calls become child spans.
//
// A redelivered event is traced into a holding area: when its outputs
// turn out to have been published already (by the handling that was not
// acknowledged), the held spans are dropped and one short span records
// the redelivery instead; otherwise they are exported.
func (d *Deps) traceHandler(service string, h worker.Handler) worker.Handler {
	return func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		t := d.Tracing
		if t == nil || !t.Enabled() {
			return h(ctx, in)
		}
		dl, _ := worker.DeliveryFrom(ctx)
		deliveries, header := dl.Deliveries, dl.Header
		parent := in.TraceParent
		if parent == "" && header != nil {
			parent = header.Get(worker.HeaderTraceParent)
		}
		kind, _ := in.Kind()
		pctx, start := d.traceParent(ctx, in.RunID(), kind, parent)
		attrs := []attribute.KeyValue{
			attribute.String("codali.service", service),
			attribute.String("codali.run_id", in.RunID()),
			attribute.String("codali.event", string(kind)),
			attribute.Int("codali.attempt", in.Attempt),
			attribute.String("messaging.system", "nats"),
			attribute.String("messaging.operation.type", "process"),
			attribute.String("messaging.message.id", in.ID),
			attribute.Int64("messaging.delivery_count", int64(max(deliveries, 1))),
		}
		tracer := t.Tracer()
		var held *telemetry.Deferred
		if deliveries > 1 {
			held = t.Defer()
			tracer = held.Tracer()
			attrs = append(attrs, attribute.Bool("codali.redelivered", true))
		}
		name := service + " " + string(kind)
		sctx, span := tracer.Start(pctx, name, append(start, trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(attrs...))...)
		redact := d.redactText()
		sctx = activity.WithObserver(sctx, telemetry.Activities(redact))
		outs, err := h(sctx, in)
		if tp := telemetry.TraceParent(sctx); tp != "" {
			for i := range outs {
				outs[i].TraceParent = tp
			}
		}
		if err != nil {
			telemetry.RecordError(span, err, redact)
		}
		if held != nil {
			span.AddEvent("redelivery", trace.WithAttributes(attribute.Int64("messaging.delivery_count", int64(deliveries))))
		}
		span.End()
		if held == nil {
			return outs, err
		}
		if err == nil && len(outs) > 0 && d.published(ctx, outs) {
			held.Discard()
			_, rs := t.Tracer().Start(pctx, name+" (redelivered)", append(start, trace.WithSpanKind(trace.SpanKindConsumer),
				trace.WithAttributes(append(attrs, attribute.Bool("codali.outputs_already_published", true))...))...)
			rs.AddEvent("redelivery: the outputs were already published; the work's spans are not repeated",
				trace.WithAttributes(attribute.Int64("messaging.delivery_count", int64(deliveries))))
			rs.End()
			return outs, err
		}
		held.Flush()
		return outs, err
	}
}

// traceParent is the context and the start options of a handling's span:
// the child of the event's trace context (traceparent); without one, a
// root span in the run's trace (telemetry.WithRunTrace). An event an
// agent published (a request, a decision) carries the agent's trace
// context: under tracing.agentTraceContext "link" its span is a new root
// in the run's trace with a link to the agent's context instead, so an
// agent cannot attach the run's spans to another trace it knows the id
// of.
func (d *Deps) traceParent(ctx context.Context, runID string, kind events.Kind, traceparent string) (context.Context, []trace.SpanStartOption) {
	pctx := telemetry.WithTraceParent(ctx, traceparent)
	remote := trace.SpanContextFromContext(pctx)
	if d.linksAgentTrace(kind) {
		var opts []trace.SpanStartOption
		if remote.IsValid() {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: remote,
				Attributes: []attribute.KeyValue{attribute.String("codali.link", "agent trace context")}}))
		}
		return telemetry.WithRunTrace(ctx, runID), append(opts, trace.WithNewRoot())
	}
	if !remote.IsValid() {
		return telemetry.WithRunTrace(ctx, runID), nil
	}
	return pctx, nil
}

// handedOnTraceParent is the trace context the runtime hands on for in,
// in the `failed` event it publishes to end in's run (the handling's span
// has ended by then): in's own, but none for an event an agent published
// under tracing.agentTraceContext "link", so the agent's context reaches
// no later handling through it (one of that event starts a root in the
// run's trace, as an event without a trace context does).
func (d *Deps) handedOnTraceParent(in events.Envelope) string {
	if k, _ := in.Kind(); d.linksAgentTrace(k) {
		return ""
	}
	return in.TraceParent
}

// linksAgentTrace reports whether the trace context of an event of kind k
// is only linked to, not followed: an agent's event under
// tracing.agentTraceContext "link".
func (d *Deps) linksAgentTrace(k events.Kind) bool {
	return k.FromAgents() && d.Config.Tracing.AgentTraceContext == config.TraceContextLink
}

// publishedCheckTimeout bounds the look-up of earlier outputs.
const publishedCheckTimeout = 5 * time.Second

// published reports whether every output is already in the work stream or
// in the run's audit history (the stream drops events once every consumer
// has them; the recorder has recorded them by then).
func (d *Deps) published(ctx context.Context, outs []events.Envelope) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), publishedCheckTimeout)
	defer cancel()
	var causes []string
	for _, out := range outs {
		if d.inStream(ctx, out) {
			continue
		}
		if causes == nil {
			causes = d.recordedCauses(ctx, out.RunID())
		}
		if !slices.Contains(causes, out.ID) {
			return false
		}
	}
	return true
}

func (d *Deps) inStream(ctx context.Context, out events.Envelope) bool {
	subject, err := out.NATSSubject()
	if err != nil {
		return false
	}
	st, err := d.JS.Stream(ctx, events.StreamWork)
	if err != nil {
		return false
	}
	msg, err := st.GetLastMsgForSubject(ctx, subject)
	if err != nil {
		if !errors.Is(err, jetstream.ErrMsgNotFound) {
			d.Log.Debug("could not look up an earlier output", "subject", subject, "err", err)
		}
		return false
	}
	id, err := d.MsgIDs.For(out.ID)
	return err == nil && msg.Header.Get(events.HeaderMsgID) == id
}

// recordedCauses lists the events the run's audit history has folded in
// (empty when it cannot be read).
func (d *Deps) recordedCauses(ctx context.Context, runID string) []string {
	store, err := raostore.Open(ctx, d.JS)
	if err != nil {
		return []string{}
	}
	evs, _, err := store.Load(ctx, runID)
	if err != nil || len(evs) == 0 {
		return []string{}
	}
	states, err := rao.States(evs)
	if err != nil {
		return []string{}
	}
	st, err := audit.DecodeState(runID, states[len(states)-1].Doc)
	if err != nil {
		return []string{}
	}
	return st.Causes
}

// FlushTraces exports the trace spans still pending and stops tracing
// (a no-op when tracing is off). Call it once the process stops handling.
func (d *Deps) FlushTraces() {
	if d.Tracing == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Tracing.Shutdown(ctx); err != nil {
		d.Log.Warn("could not flush trace spans", "err", err)
	}
}
