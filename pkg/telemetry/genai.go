package telemetry

import (
	"context"

	"github.com/codali-dev/codali/pkg/llm"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// GenAI semantic-convention attribute names.
const (
	AttrGenAIOperation    = "gen_ai.operation.name"
	AttrGenAIProvider     = "gen_ai.provider.name"
	AttrGenAIRequestModel = "gen_ai.request.model"
	AttrGenAIResponseID   = "gen_ai.response.id"
	AttrGenAIRespModel    = "gen_ai.response.model"
	AttrGenAIInputTokens  = "gen_ai.usage.input_tokens"
	AttrGenAIOutputTokens = "gen_ai.usage.output_tokens"
	AttrGenAITemperature  = "gen_ai.request.temperature"
	AttrGenAIMaxTokens    = "gen_ai.request.max_tokens"
	AttrGenAIOutputType   = "gen_ai.output.type"
	AttrErrorType         = "error.type"
)

// tracedModel is an llm.Provider decorator making a client span per call.
type tracedModel struct {
	inner    llm.Provider
	provider string
	redact   Redact
}

// TraceModel wraps a provider so every call made under a span is a child
// span named "chat <model>" with the GenAI semantic conventions, made by
// the parent span's tracer provider; providerName is the
// gen_ai.provider.name (ollama, openai, or the provider type). Token
// counts are set when the provider reports them; a call's error is
// recorded through redact. Calls without a span in their context are not
// traced.
func TraceModel(p llm.Provider, providerName string, redact Redact) llm.Provider {
	return &tracedModel{inner: p, provider: providerName, redact: redact}
}

func (m *tracedModel) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	parent := trace.SpanFromContext(ctx)
	if !parent.SpanContext().IsValid() {
		return m.inner.Complete(ctx, req)
	}
	attrs := []attribute.KeyValue{
		attribute.String(AttrGenAIOperation, "chat"),
		attribute.String(AttrGenAIProvider, m.provider),
		attribute.String(AttrGenAIRequestModel, req.Model),
		attribute.Float64(AttrGenAITemperature, req.Temperature),
		attribute.String("codali.phase", req.Phase),
		attribute.Int("codali.step", req.Step),
	}
	if req.MaxTokens > 0 {
		attrs = append(attrs, attribute.Int(AttrGenAIMaxTokens, req.MaxTokens))
	}
	if req.Format == "json" {
		attrs = append(attrs, attribute.String(AttrGenAIOutputType, "json"))
	}
	name := "chat"
	if req.Model != "" {
		name += " " + req.Model
	}
	ctx, span := parent.TracerProvider().Tracer(Instrumentation).Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	defer span.End()
	resp, err := m.inner.Complete(ctx, req)
	if err != nil {
		RecordError(span, err, m.redact)
		span.SetAttributes(attribute.String(AttrErrorType, errorType(err)))
		return resp, err
	}
	span.SetAttributes(
		attribute.Int(AttrGenAIInputTokens, resp.Usage.PromptTokens),
		attribute.Int(AttrGenAIOutputTokens, resp.Usage.CompletionTokens),
	)
	if resp.Model != "" {
		span.SetAttributes(attribute.String(AttrGenAIRespModel, resp.Model))
	}
	if resp.ID != "" {
		span.SetAttributes(attribute.String(AttrGenAIResponseID, resp.ID))
	}
	return resp, nil
}

func errorType(err error) string {
	switch {
	case isErr(err, llm.ErrUnavailable):
		return "unavailable"
	case isErr(err, llm.ErrRejected):
		return "rejected"
	}
	return "_OTHER"
}
