package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/codali-dev/codali/pkg/redact"
)

// redactingHandler is a log handler that redacts every message and every
// attribute before inner writes it: the workers log errors whose texts
// come from model servers, commands and repositories, and code logs
// structs, maps and byte slices that may hold secrets. A string, an
// error (its message), a fmt.Stringer (its String) or a []byte (as text)
// goes through the Redactor's String; any other value (a struct, a map, a
// slice, a pointer) through its Value, which redacts by key as JSON does
// (a struct becomes its redacted JSON); every value under a secret-like
// key or group name (IsSecretKey) becomes the secret marker. Booleans,
// durations and times are kept, and numbers unless under such a key.
type redactingHandler struct {
	inner slog.Handler
	red   *redact.Redactor
	// secret is set below a group whose name is secret-like.
	secret bool
}

// secretMarker replaces a value under a secret-like key.
var secretMarker = "[REDACTED:" + redact.SecretLabel + "]"

// redactedLogger returns log writing through red (log itself when red is
// nil).
func redactedLogger(log *slog.Logger, red *redact.Redactor) *slog.Logger {
	if log == nil || red == nil {
		return log
	}
	return slog.New(&redactingHandler{inner: log.Handler(), red: red})
}

func (h *redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *redactingHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.red.String(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a, h.secret))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *redactingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.attr(a, h.secret)
	}
	return &redactingHandler{inner: h.inner.WithAttrs(red), red: h.red, secret: h.secret}
}

func (h *redactingHandler) WithGroup(name string) slog.Handler {
	return &redactingHandler{inner: h.inner.WithGroup(name), red: h.red, secret: h.secret || redact.IsSecretKey(name)}
}

// attr redacts an attribute (secret: it is below a secret-like group).
func (h *redactingHandler) attr(a slog.Attr, secret bool) slog.Attr {
	v := a.Value.Resolve()
	secret = secret || redact.IsSecretKey(a.Key)
	switch v.Kind() {
	case slog.KindGroup:
		group := v.Group()
		red := make([]any, len(group))
		for i, g := range group {
			red[i] = h.attr(g, secret)
		}
		return slog.Group(a.Key, red...)
	case slog.KindString:
		if secret {
			return slog.String(a.Key, secretMarker)
		}
		return slog.String(a.Key, h.red.String(v.String()))
	case slog.KindInt64, slog.KindUint64, slog.KindFloat64:
		if secret {
			return slog.String(a.Key, secretMarker)
		}
	case slog.KindAny:
		return slog.Attr{Key: a.Key, Value: h.anyValue(v.Any(), secret)}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// anyValue redacts a value of kind Any.
func (h *redactingHandler) anyValue(x any, secret bool) slog.Value {
	switch {
	case x == nil:
		return slog.AnyValue(nil)
	case secret:
		return slog.StringValue(secretMarker)
	}
	switch x := x.(type) {
	case error, fmt.Stringer:
		// fmt prints them as the standard handlers do, recovering from a
		// panicking method (a nil *url.URL's String).
		return slog.StringValue(h.red.String(fmt.Sprint(x)))
	case []byte:
		return slog.StringValue(string(h.red.Bytes(x)))
	}
	v := h.red.Value(x)
	if raw, ok := v.(json.RawMessage); ok {
		return slog.AnyValue(redactedJSON(raw))
	}
	return slog.AnyValue(v)
}

// redactedJSON is a value Value redacted by way of its JSON encoding: the
// JSON handler writes it as that JSON, the text handler as its text.
type redactedJSON json.RawMessage

// MarshalJSON returns the redacted JSON.
func (j redactedJSON) MarshalJSON() ([]byte, error) { return j, nil }

// MarshalText returns the redacted JSON as text.
func (j redactedJSON) MarshalText() ([]byte, error) { return j, nil }
