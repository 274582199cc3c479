package telemetry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/codali-dev/codali/pkg/telemetry"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestSetupFromEnvironment(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		env     map[string]string
		enabled bool
		err     bool
	}{
		{"off by default", nil, false, false},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, true, false},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"}, true, false},
		{"exporter otlp", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true, false},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, true, false},
		{"exporter none wins", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, false, false},
		{"sdk disabled", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, false, false},
		{"unknown exporter", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, false, true},
		{"unknown protocol", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := telemetry.Setup(ctx, "codali", env(tc.env))
			if tc.err {
				if !errors.Is(err, telemetry.ErrInvalidConfig) {
					t.Fatalf("err = %v, want ErrInvalidConfig", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Shutdown(ctx) //nolint:errcheck
			if tr.Enabled() != tc.enabled {
				t.Fatalf("enabled = %v", tr.Enabled())
			}
		})
	}
}

func TestTraceParentRoundTrip(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx := telemetry.WithTraceParent(context.Background(), tp)
	if got := telemetry.TraceParent(ctx); got != tp {
		t.Fatalf("traceparent %q", got)
	}
	if telemetry.TraceID(tp) != "4bf92f3577b34da6a3ce929d0e0e4736" || telemetry.TraceID("garbage") != "" {
		t.Fatal("TraceID")
	}
	if telemetry.TraceParent(context.Background()) != "" || telemetry.TraceParent(telemetry.WithTraceParent(context.Background(), "bad")) != "" {
		t.Fatal("a context without a valid span has a traceparent")
	}
	a, b := telemetry.RunTraceID("run-1"), telemetry.RunTraceID("run-2")
	if !a.IsValid() || a == b || a != telemetry.RunTraceID("run-1") {
		t.Fatal("run trace ids")
	}
	// Root spans of a run context get the run's trace id.
	tr := telemetry.NewWithExporter(discardExporter{}, "t")
	defer tr.Shutdown(context.Background()) //nolint:errcheck
	_, span := tr.Tracer().Start(telemetry.WithRunTrace(context.Background(), "run-1"), "x")
	if span.SpanContext().TraceID() != a {
		t.Fatal("the root span did not get the run's trace id")
	}
	_, other := tr.Tracer().Start(context.Background(), "y")
	if other.SpanContext().TraceID() == a || !other.SpanContext().IsValid() {
		t.Fatal("an ordinary root span got the run's trace id")
	}
}
