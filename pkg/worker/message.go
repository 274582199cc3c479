package worker

import (
	"context"
	"encoding/hex"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// HeaderTraceParent is the W3C trace-context header the runtime sets on
// every published event that carries a trace context.
const HeaderTraceParent = "traceparent"

type messageKey struct{}

// messageInfo is what a handler may learn about the message it handles.
type messageInfo struct {
	deliveries uint64
	header     nats.Header
}

func withMessage(ctx context.Context, msg jetstream.Msg) context.Context {
	info := messageInfo{deliveries: 1, header: msg.Headers()}
	if md, err := msg.Metadata(); err == nil {
		info.deliveries = md.NumDelivered
	}
	return context.WithValue(ctx, messageKey{}, info)
}

// Delivery tells a handler how many times the message it handles has been
// delivered (1 the first time) and the message's NATS headers. ok is false
// outside a runtime's handler.
func Delivery(ctx context.Context) (deliveries uint64, header nats.Header, ok bool) {
	info, ok := ctx.Value(messageKey{}).(messageInfo)
	return info.deliveries, info.header, ok
}

// traceIDOf returns the trace id of a W3C traceparent value, or "".
func traceIDOf(traceparent string) string {
	parts := strings.Split(traceparent, "-")
	if len(parts) != 4 || len(parts[1]) != 32 || parts[1] == strings.Repeat("0", 32) {
		return ""
	}
	if _, err := hex.DecodeString(parts[1]); err != nil {
		return ""
	}
	return parts[1]
}
