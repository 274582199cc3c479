package telemetry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/codali-dev/codali/pkg/activity"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/telemetry"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

type answer struct {
	resp llm.Response
	err  error
}

func (a answer) Complete(context.Context, llm.Request) (llm.Response, error) { return a.resp, a.err }

func attrs(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, a := range s.Attributes {
		m[a.Key] = a.Value
	}
	return m
}

func TestModelSpansFollowGenAIConventions(t *testing.T) {
	ctx := context.Background()
	exp := tracetest.NewInMemoryExporter()
	tr := telemetry.NewWithExporter(exp, "t")
	req := llm.Request{Phase: "builder", Step: 2, Model: "gpt-x", Temperature: 0.2, Format: "json", MaxTokens: 100,
		Messages: []llm.Message{{Role: "user", Content: "hi"}}}

	// Without a span in the context nothing is traced.
	ok := telemetry.TraceModel(answer{resp: llm.Response{Content: "x"}}, "openai", nil)
	if _, err := ok.Complete(ctx, req); err != nil {
		t.Fatal(err)
	}
	pctx, parent := tr.Tracer().Start(ctx, "builder plan")
	ok = telemetry.TraceModel(answer{resp: llm.Response{Content: "x", Model: "gpt-x-2", ID: "chatcmpl-7", Usage: llm.Usage{PromptTokens: 11, CompletionTokens: 4}}}, "openai", nil)
	if _, err := ok.Complete(pctx, req); err != nil {
		t.Fatal(err)
	}
	bad := telemetry.TraceModel(answer{err: errors.Join(llm.ErrUnavailable, errors.New("503"))}, "ollama", nil)
	if _, err := bad.Complete(pctx, req); err == nil {
		t.Fatal("error lost")
	}
	actx, end := activity.Begin(activity.WithObserver(pctx, telemetry.Activities(nil)), activity.Event{Kind: activity.Tool, Name: "read_file", Step: 2})
	if !trace.SpanContextFromContext(actx).IsValid() {
		t.Fatal("no tool span in the activity's context")
	}
	end(errors.New("no such file"))
	parent.End()
	if err := tr.ForceFlush(ctx); err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	if len(spans) != 4 {
		t.Fatalf("%d spans", len(spans))
	}
	chat := attrs(spans[0])
	for k, want := range map[attribute.Key]any{
		"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-x",
		"gen_ai.response.model": "gpt-x-2", "gen_ai.response.id": "chatcmpl-7", "gen_ai.usage.input_tokens": int64(11),
		"gen_ai.usage.output_tokens": int64(4), "gen_ai.request.max_tokens": int64(100), "gen_ai.output.type": "json",
	} {
		if got := chat[k].AsInterface(); got != want {
			t.Errorf("%s = %v, want %v", k, got, want)
		}
	}
	if spans[0].Name != "chat gpt-x" || spans[0].SpanKind != trace.SpanKindClient || spans[0].Parent.SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("chat span %q kind %v", spans[0].Name, spans[0].SpanKind)
	}
	if spans[1].Status.Code != codes.Error || attrs(spans[1])["error.type"].AsString() != "unavailable" {
		t.Errorf("failed call: %+v %v", spans[1].Status, attrs(spans[1]))
	}
	if spans[2].Name != "execute_tool read_file" || spans[2].Status.Code != codes.Error || attrs(spans[2])["gen_ai.tool.name"].AsString() != "read_file" {
		t.Errorf("tool span %q %+v", spans[2].Name, spans[2].Status)
	}
}
