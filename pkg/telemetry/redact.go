package telemetry

import (
	"errors"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Redact removes secrets from a text bound for a span (a name, an
// attribute, an error); nil keeps texts as they are.
type Redact func(string) string

func (r Redact) text(s string) string {
	if r == nil {
		return s
	}
	return r(s)
}

// RecordError records err on span, as an exception event and as the
// span's error status, with its text redacted: errors carry what the
// model, the repository or a command produced.
func RecordError(span trace.Span, err error, redact Redact) {
	msg := redact.text(err.Error())
	span.RecordError(errors.New(msg))
	span.SetStatus(codes.Error, msg)
}
