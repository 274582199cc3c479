package telemetry_test

import (
	"context"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

type discardExporter struct{}

func (discardExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardExporter) Shutdown(context.Context) error                             { return nil }
