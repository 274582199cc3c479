package worker

import (
	"context"
	"time"
)

// Steps of handling an event that handlers time with Step; the runtime
// times StepPublish itself.
const (
	StepModel     = "model"
	StepWorkspace = "workspace"
	StepTools     = "tools"
	StepChecks    = "checks"
	StepIndex     = "index"
	StepPublish   = "publish"
)

type stepKey struct{}

// stepTimer records step durations for one service.
type stepTimer struct {
	metrics *Metrics
	service string
}

// withSteps returns ctx carrying the step timer of a runtime.
func withSteps(ctx context.Context, m *Metrics, service string) context.Context {
	if m == nil {
		return ctx
	}
	return context.WithValue(ctx, stepKey{}, stepTimer{metrics: m, service: service})
}

// Step starts timing a step of the current handler (codali_step_duration_seconds
// {service, step}) and returns the function that ends it:
//
//	defer worker.Step(ctx, worker.StepModel)()
//
// Outside a Runtime with metrics it costs nothing and records nothing.
func Step(ctx context.Context, step string) (done func()) {
	t, ok := ctx.Value(stepKey{}).(stepTimer)
	if !ok {
		return func() {}
	}
	start := time.Now()
	return func() {
		t.metrics.steps.WithLabelValues(t.service, step).Observe(time.Since(start).Seconds())
	}
}
