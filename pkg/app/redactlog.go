package app

import (
	"context"
	"log/slog"
)

// redactingHandler is a log handler that passes every message and every
// string or error attribute through redact before inner writes it: the
// workers log errors whose texts come from model servers, commands and
// repositories.
type redactingHandler struct {
	inner  slog.Handler
	redact func(string) string
}

// redactedLogger returns log writing through redact (log itself when
// redact is nil).
func redactedLogger(log *slog.Logger, redact func(string) string) *slog.Logger {
	if log == nil || redact == nil {
		return log
	}
	return slog.New(&redactingHandler{inner: log.Handler(), redact: redact})
}

func (h *redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *redactingHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.redact(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *redactingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.attr(a)
	}
	return &redactingHandler{inner: h.inner.WithAttrs(red), redact: h.redact}
}

func (h *redactingHandler) WithGroup(name string) slog.Handler {
	return &redactingHandler{inner: h.inner.WithGroup(name), redact: h.redact}
}

// attr redacts a string or error attribute, and those in a group.
func (h *redactingHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.redact(v.String()))
	case slog.KindGroup:
		group := v.Group()
		red := make([]any, len(group))
		for i, g := range group {
			red[i] = h.attr(g)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok && err != nil {
			return slog.String(a.Key, h.redact(err.Error()))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
