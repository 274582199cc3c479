package telemetry_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/codali-dev/codali/pkg/activity"
	"github.com/codali-dev/codali/pkg/telemetry"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestActivitySpansRedactOnce: an activity's span carries no secret of
// its name, detail or error. Names and details Begin redacted already
// (activity.WithRedaction) are not redacted again; those it did not are
// redacted here; errors always are.
func TestActivitySpansRedactOnce(t *testing.T) {
	const secret = "AKIAIOSFODNN7EXAMPLE"
	var calls atomic.Int64
	redact := func(s string) string {
		calls.Add(1)
		return strings.ReplaceAll(s, secret, "[REDACTED]")
	}
	e := activity.Event{Kind: activity.Check, Name: "key " + secret, Detail: "curl -H 'X-Key: " + secret + "'"}
	for _, tc := range []struct {
		name  string
		once  bool
		calls int64
	}{
		{"redacted by Begin", true, 1}, // the error only
		{"not redacted by Begin", false, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls.Store(0)
			exp := tracetest.NewInMemoryExporter()
			tr := telemetry.NewWithExporter(exp, "t")
			ctx, span := tr.Tracer().Start(context.Background(), "handling")
			ctx = activity.WithObserver(ctx, telemetry.Activities(redact))
			var begin int64
			if tc.once {
				// Begin's own redaction, counted apart.
				ctx = activity.WithRedaction(ctx, func(s string) string {
					begin++
					return strings.ReplaceAll(s, secret, "[REDACTED]")
				})
			}
			_, end := activity.Begin(ctx, e)
			end(errors.New("exit 1: key " + secret + " rejected"))
			span.End()
			if err := tr.ForceFlush(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n := calls.Load(); n != tc.calls {
				t.Errorf("the span observer redacted %d texts, want %d", n, tc.calls)
			}
			if tc.once && begin != 2 {
				t.Errorf("Begin redacted %d texts, want 2", begin)
			}
			spans := exp.GetSpans()
			if len(spans) != 2 {
				t.Fatalf("%d spans", len(spans))
			}
			for _, s := range spans {
				texts := []string{s.Name, s.Status.Description}
				for _, a := range s.Attributes {
					texts = append(texts, a.Value.String())
				}
				for _, ev := range s.Events {
					for _, a := range ev.Attributes {
						texts = append(texts, a.Value.String())
					}
				}
				for _, text := range texts {
					if strings.Contains(text, secret) {
						t.Errorf("span %q carries the secret: %q", s.Name, text)
					}
				}
			}
		})
	}
}
