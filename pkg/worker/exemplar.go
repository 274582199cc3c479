package worker

import (
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/prometheus/client_golang/prometheus"
)

// traceOf is the trace id of a handling: its first output's trace context
// (the handling's own span, when tracing is on), else the input's
// (Runtime.traceParentOf).
func traceOf(outs []events.Envelope, in string) string {
	for _, o := range outs {
		if id := traceIDOf(o.TraceParent); id != "" {
			return id
		}
	}
	return traceIDOf(in)
}

// observeDuration records a handler duration, with the trace id as an
// exemplar when there is one (exposed in the OpenMetrics format).
func (m *Metrics) observeDuration(service, event string, d time.Duration, traceID string) {
	o := m.duration.WithLabelValues(service, event)
	if eo, ok := o.(prometheus.ExemplarObserver); ok && traceID != "" {
		eo.ObserveWithExemplar(d.Seconds(), prometheus.Labels{"trace_id": traceID})
		return
	}
	o.Observe(d.Seconds())
}
