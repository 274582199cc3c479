package app

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/codali-dev/codali/pkg/worker"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
)

// Observability is a process's metrics registry, worker metrics and
// readiness checks, served over HTTP.
type Observability struct {
	// Metrics are the worker metrics to pass to RunComponents.
	Metrics *worker.Metrics
	// Health aggregates readiness; RunComponents adds each runtime to it.
	Health *worker.Health
	// Addr is the address the health server listens on.
	Addr string
	// Registry receives service-level metrics (set it as Deps.Registerer).
	Registry *prometheus.Registry
	// Startup is ready once the process has provisioned and opened what
	// it needs; until then /readyz says what it is waiting for.
	Startup *Startup
}

// Startup is a readiness check for the start-up steps that are retried
// (provisioning, opening buckets): not ready with the last reason until
// Done. It is safe for concurrent use.
type Startup struct {
	mu   sync.Mutex
	err  error
	done bool
}

// Report records why start-up is not complete yet (nil: the step worked).
func (s *Startup) Report(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// Done marks start-up complete.
func (s *Startup) Done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done, s.err = true, nil
}

// Ready reports nil once start-up is done, and otherwise the last reason.
func (s *Startup) Ready() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.done:
		return nil
	case s.err != nil:
		return s.err
	default:
		return errors.New("starting")
	}
}

// Observe creates the registry and metrics, adds the NATS connection and
// the start-up steps to readiness, and serves /healthz, /readyz and
// /metrics on addr until ctx's cancellation-free copy is stopped by the
// returned function. It returns once the server listens, or with the error
// that prevented it. Call it before the start-up steps, so /readyz can say
// why the process is not ready yet.
func Observe(ctx context.Context, nc *nats.Conn, addr string) (*Observability, func(), error) {
	reg, metrics, err := NewRegistry()
	if err != nil {
		return nil, nil, err
	}
	health := worker.NewHealth()
	startup := &Startup{}
	health.Add("startup", startup.Ready)
	health.Add("nats", func() error {
		if !nc.IsConnected() {
			return errors.New("not connected")
		}
		return nil
	})
	hctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	bound := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- worker.Serve(hctx, addr, health.Handler(reg), bound) }()
	select {
	case a := <-bound:
		return &Observability{Metrics: metrics, Health: health, Addr: a, Registry: reg, Startup: startup}, stop, nil
	case err := <-errc:
		stop()
		return nil, nil, fmt.Errorf("health server: %w", err)
	}
}
