// Package telemetry sets up OpenTelemetry tracing for a Codali process:
// an OTLP exporter configured by the standard OTEL_* environment variables
// (off unless an endpoint or exporter is set), W3C trace-context
// propagation through event envelopes and NATS headers, one trace per run
// (runs without a trace context get a trace id derived from the run id),
// spans for model calls with the GenAI semantic conventions, and spans for
// activities (tool calls, checks).
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// ErrInvalidConfig: the OTEL_* environment asks for something unsupported.
var ErrInvalidConfig = errors.New("invalid OpenTelemetry configuration")

// Instrumentation is the tracer name of Codali's spans.
const Instrumentation = "github.com/codali-dev/codali"

// Tracing is a process's tracer provider. The zero value is not usable;
// use Setup or Disabled.
type Tracing struct {
	provider trace.TracerProvider
	tracer   trace.Tracer
	shutdown func(context.Context) error
	enabled  bool
	// processor and res serve deferred tracers (see Defer).
	processor sdktrace.SpanProcessor
	res       *resource.Resource
}

// Disabled returns tracing that records nothing.
func Disabled() *Tracing {
	p := noop.NewTracerProvider()
	return &Tracing{provider: p, tracer: p.Tracer(Instrumentation), shutdown: func(context.Context) error { return nil }}
}

// Enabled reports whether spans are exported.
func (t *Tracing) Enabled() bool { return t.enabled }

// Tracer returns Codali's tracer.
func (t *Tracing) Tracer() trace.Tracer { return t.tracer }

// Provider returns the tracer provider.
func (t *Tracing) Provider() trace.TracerProvider { return t.provider }

// Shutdown flushes pending spans and stops the exporter.
func (t *Tracing) Shutdown(ctx context.Context) error { return t.shutdown(ctx) }

// ForceFlush exports the spans ended so far.
func (t *Tracing) ForceFlush(ctx context.Context) error {
	if t.processor == nil {
		return nil
	}
	return t.processor.ForceFlush(ctx)
}

// Setup reads the standard OpenTelemetry environment through getenv (nil
// means none): tracing is on when OTEL_TRACES_EXPORTER is "otlp", or when
// it is unset and OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set; OTEL_SDK_DISABLED=true turns
// it off. OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL picks http/protobuf (the
// default) or grpc. The exporters read the other OTEL_EXPORTER_OTLP_*
// variables (endpoint, headers, timeout, TLS) themselves, the SDK reads
// OTEL_TRACES_SAMPLER and OTEL_BSP_*, and OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES override the resource (service defaults to
// service). It returns an error wrapping ErrInvalidConfig for an exporter
// or protocol it does not support.
func Setup(ctx context.Context, service string, getenv func(string) string) (*Tracing, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }
	if strings.EqualFold(env("OTEL_SDK_DISABLED"), "true") {
		return Disabled(), nil
	}
	switch exp := strings.ToLower(env("OTEL_TRACES_EXPORTER")); exp {
	case "none":
		return Disabled(), nil
	case "":
		if env("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
			return Disabled(), nil
		}
	case "otlp":
	default:
		return nil, fmt.Errorf("%w: OTEL_TRACES_EXPORTER %q (want otlp or none)", ErrInvalidConfig, exp)
	}
	protocol := env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = env("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	var exporter sdktrace.SpanExporter
	var err error
	switch protocol {
	case "", "http/protobuf":
		exporter, err = otlptracehttp.New(ctx)
	case "grpc":
		exporter, err = otlptracegrpc.New(ctx)
	default:
		return nil, fmt.Errorf("%w: OTLP protocol %q (want http/protobuf or grpc)", ErrInvalidConfig, protocol)
	}
	if err != nil {
		return nil, fmt.Errorf("could not create the OTLP trace exporter: %w", err)
	}
	// Later options override earlier ones: the environment wins.
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", service)),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("%w: resource: %w", ErrInvalidConfig, err)
	}
	return newTracing(exporter, res), nil
}

// NewWithExporter returns tracing that exports to exporter (tests, or a
// host that builds its own exporter).
func NewWithExporter(exporter sdktrace.SpanExporter, service string) *Tracing {
	return newTracing(exporter, resource.NewSchemaless(attribute.String("service.name", service)))
}

func newTracing(exporter sdktrace.SpanExporter, res *resource.Resource) *Tracing {
	bsp := sdktrace.NewBatchSpanProcessor(exporter)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(bsp), sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(runIDs{}))
	return &Tracing{provider: tp, tracer: tp.Tracer(Instrumentation), shutdown: tp.Shutdown, enabled: true,
		processor: bsp, res: res}
}
