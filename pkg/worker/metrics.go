package worker

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes recorded in metrics.
const (
	outcomeOK         = "ok"
	outcomeTransient  = "transient"
	outcomePermanent  = "permanent"
	outcomeDeadLetter = "dead_letter"
	outcomeMalformed  = "malformed"
	// outcomeRefused: the event does not belong to its run (a second
	// request for a run id, or another request's phase event).
	outcomeRefused = "refused"
)

// Metrics are the Prometheus collectors the runtime updates. One Metrics
// value is shared by every runtime of a process; each labels its samples
// with its service name.
type Metrics struct {
	handled      *prometheus.CounterVec
	failures     *prometheus.CounterVec
	redeliveries *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	inflight     *prometheus.GaugeVec
	steps        *prometheus.HistogramVec
}

// NewMetrics creates the collectors and registers them with reg. It returns
// an error when registration fails (for instance, registering twice).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		handled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "codali", Name: "events_handled_total",
			Help: "Events handled, by service, event kind and outcome (ok, transient, permanent, dead_letter, malformed, refused).",
		}, []string{"service", "event", "outcome"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "codali", Name: "handler_failures_total",
			Help: "Failed event handlings, by service and failure class.",
		}, []string{"service", "class"}),
		redeliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "codali", Name: "redeliveries_total",
			Help: "Messages received that had been delivered before.",
		}, []string{"service"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "codali", Name: "handler_duration_seconds",
			Help:    "Handler duration, by service and event kind.",
			Buckets: []float64{.001, .005, .01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		}, []string{"service", "event"}),
		inflight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "codali", Name: "handlers_in_flight",
			Help: "Handlers currently running, by service.",
		}, []string{"service"}),
		steps: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "codali", Name: "step_duration_seconds",
			Help:    "Time spent in the steps of handling an event (model, workspace, tools, checks, index, publish), by service.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		}, []string{"service", "step"}),
	}
	for _, c := range []prometheus.Collector{m.handled, m.failures, m.redeliveries, m.duration, m.inflight, m.steps} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("could not register worker metrics: %w", err)
		}
	}
	return m, nil
}
