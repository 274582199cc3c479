package worker

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/msgid"
	"github.com/nats-io/nats.go"
)

// HeaderTraceParent is the W3C trace-context header the runtime sets on
// every published event that carries a trace context.
const HeaderTraceParent = "traceparent"

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

// EventMsg is the message the runtime publishes for the event e: on e's
// subject, encoded within maxBytes, with key's message id of e's id as its
// Nats-Msg-Id (msgid.Key.For: the same on every replica, so a copy
// published again within the stream's duplicate window is dropped, and
// unknown to agents, so none can take it first) and e's trace context.
// A handler that publishes an event itself (the builder publishing a park
// again) sends the same message. A zero key is an error wrapping
// msgid.ErrNoKey: no service event is published under a predictable id.
func EventMsg(e events.Envelope, maxBytes int, key msgid.Key) (*nats.Msg, error) {
	id, err := key.For(e.ID)
	if err != nil {
		return nil, fmt.Errorf("event %s: %w", e.ID, err)
	}
	subject, err := e.NATSSubject()
	if err != nil {
		return nil, fmt.Errorf("event %s: %w", e.ID, err)
	}
	data, err := e.Encode(maxBytes)
	if err != nil {
		return nil, fmt.Errorf("event %s: %w", e.ID, err)
	}
	m := nats.NewMsg(subject)
	m.Data = data
	m.Header.Set(events.HeaderMsgID, id)
	if e.TraceParent != "" {
		m.Header.Set(HeaderTraceParent, e.TraceParent)
	}
	return m, nil
}
