package worker

import (
	"encoding/hex"
	"strings"
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
