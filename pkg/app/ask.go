package app

import (
	"context"
	"errors"
	"github.com/codali-dev/codali/pkg/worker"
	"log/slog"
	"sync"

	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/prometheus/client_golang/prometheus"
)

// Asked is the outcome of Deps.Ask: the validated answer and what it cost.
type Asked struct {
	// Structured is the answer and the conversation.
	llm.Structured
	// Usage is the usage of every call made, also when Ask failed.
	Usage []events.ModelUsage
	// Route is the route that was used.
	Route config.Resolved
}

// Ask sends a phase's request to the phase's routed model with the route's
// model, temperature and format (json unless the route says gbnf), asks
// for an answer satisfying schema (one repair turn, then an
// llm.ContractError; see llm.CompleteJSON) and accounts every call: its
// usage is returned, counted in the model metrics and logged. req's Phase,
// RunID, Attempt, Step and Messages are the caller's; Model, Temperature,
// Format and Schema are set here. Errors from the route wrap
// config.ErrInvalid or llm.ErrInvalidConfig.
func (d *Deps) Ask(ctx context.Context, req llm.Request, schema *llm.Schema, check func([]byte) error) (Asked, error) {
	p, route, err := d.Model(req.Phase)
	if err != nil {
		return Asked{Route: route}, err
	}
	req.Model, req.Temperature, req.Schema = route.Route.Model, route.Route.Temperature, schema
	req.Format = llm.FormatJSON
	if route.Route.Format == llm.FormatGBNF {
		req.Format = llm.FormatGBNF
	}
	modelDone := worker.Step(ctx, worker.StepModel)
	out, err := llm.CompleteJSON(ctx, p, req, check)
	modelDone()
	a := Asked{Structured: out, Route: route}
	for _, c := range out.Calls {
		model := c.Model
		if model == "" {
			model = req.Model
		}
		u := events.Call(req.Phase, route.Name, model, c.Usage.PromptTokens, c.Usage.CompletionTokens, c.Duration)
		a.Usage = events.MergeUsage(a.Usage, u)
		d.modelMetrics().observe(u, c)
		d.Log.LogAttrs(ctx, slog.LevelInfo, "model call",
			slog.String("run", req.RunID), slog.String("phase", req.Phase), slog.Int("attempt", req.Attempt), slog.Int("step", req.Step),
			slog.String("provider", route.Name), slog.String("model", model),
			slog.Int("input_tokens", c.Usage.PromptTokens), slog.Int("output_tokens", c.Usage.CompletionTokens),
			slog.Duration("duration", c.Duration))
	}
	return a, err
}

// modelMetrics are the model usage collectors of a process.
type modelMetrics struct {
	tokens   *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func (m *modelMetrics) observe(u events.ModelUsage, c llm.Response) {
	if m == nil {
		return
	}
	m.tokens.WithLabelValues(u.Phase, u.Provider, u.Model, "input").Add(float64(u.InputTokens))
	m.tokens.WithLabelValues(u.Phase, u.Provider, u.Model, "output").Add(float64(u.OutputTokens))
	m.duration.WithLabelValues(u.Phase, u.Provider, u.Model).Observe(c.Duration.Seconds())
}

// modelMetrics registers the collectors with d.Registerer on first use (nil
// when the process has no registry). A collector already registered (by
// another Deps sharing the registry) is reused.
func (d *Deps) modelMetrics() *modelMetrics {
	d.metricsOnce.Do(func() {
		if d.Registerer == nil {
			return
		}
		m := &modelMetrics{
			tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
				Namespace: "codali", Name: "model_tokens_total",
				Help: "Model tokens by phase, provider, model and direction (input, output), as the servers reported them.",
			}, []string{"phase", "provider", "model", "direction"}),
			duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
				Namespace: "codali", Name: "model_request_duration_seconds",
				Help:    "Duration of model requests by phase, provider and model.",
				Buckets: prometheus.ExponentialBuckets(0.05, 2, 14),
			}, []string{"phase", "provider", "model"}),
		}
		m.tokens = register(d.Registerer, m.tokens, d.Log)
		m.duration = register(d.Registerer, m.duration, d.Log)
		if m.tokens != nil && m.duration != nil {
			d.metrics = m
		}
	})
	return d.metrics
}

// register registers c, or returns the collector already registered under
// its name; nil (logged) when neither works.
func register[C prometheus.Collector](reg prometheus.Registerer, c C, log *slog.Logger) C {
	err := reg.Register(c)
	if err == nil {
		return c
	}
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing
		}
	}
	log.Warn("could not register model metrics", "err", err)
	var zero C
	return zero
}

// usageState is embedded in Deps.
type usageState struct {
	metricsOnce sync.Once
	metrics     *modelMetrics
}
