package telemetry

import (
	"context"
	"errors"

	"github.com/codali-dev/codali/pkg/activity"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

func isErr(err, target error) bool { return errors.Is(err, target) }

// Activities is an activity observer that makes a span per activity (tool
// calls, checks) under the span in the context, with that span's tracer
// provider. Without a span in the context it does nothing. Errors pass
// through redact, and so do names and details unless Begin redacted them
// already (activity.WithRedaction, which the services install: then they
// are redacted once for every observer): a tool's name is the model's
// text, a check's name and command the plan's.
func Activities(redact Redact) activity.Observer { return activities{redact: redact} }

type activities struct{ redact Redact }

func (a activities) Begin(ctx context.Context, e activity.Event) (context.Context, func(error)) {
	parent := trace.SpanFromContext(ctx)
	if !parent.SpanContext().IsValid() || e.Kind == activity.Model {
		// Model calls have their GenAI span (TraceModel).
		return ctx, func(error) {}
	}
	if !e.Redacted() {
		e.Name, e.Detail = a.redact.text(e.Name), a.redact.text(e.Detail)
	}
	attrs := []attribute.KeyValue{attribute.String("codali.activity", string(e.Kind))}
	name := string(e.Kind) + " " + e.Name
	switch e.Kind {
	case activity.Tool:
		attrs = append(attrs, attribute.String("gen_ai.tool.name", e.Name), attribute.String(AttrGenAIOperation, "execute_tool"))
		name = "execute_tool " + e.Name
	case activity.Check:
		attrs = append(attrs, attribute.String("codali.check.name", e.Name))
	}
	if e.Detail != "" {
		attrs = append(attrs, attribute.String("codali.detail", e.Detail))
	}
	if e.Step > 0 {
		attrs = append(attrs, attribute.Int("codali.step", e.Step))
	}
	ctx, span := parent.TracerProvider().Tracer(Instrumentation).Start(ctx, name, trace.WithAttributes(attrs...))
	return ctx, func(err error) {
		if err != nil {
			RecordError(span, err, a.redact)
		}
		span.End()
	}
}

// Output is not traced: output goes to live progress, not spans.
func (activities) Output(context.Context, activity.Event, string) {}
