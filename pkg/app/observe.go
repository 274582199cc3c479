package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/codali-dev/codali/pkg/worker"
	"github.com/nats-io/nats.go"
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
}

// Observe creates the registry and metrics (and hands the registry to d),
// adds the NATS connection to readiness, and serves /healthz, /readyz and
// /metrics on addr until ctx's cancellation-free copy is stopped by the
// returned function, which also flushes pending trace spans. It returns once the server listens, or with the error
// that prevented it.
func Observe(ctx context.Context, d *Deps, nc *nats.Conn, addr string) (*Observability, func(), error) {
	reg, metrics, err := NewRegistry()
	if err != nil {
		return nil, nil, err
	}
	d.Registerer = reg
	health := worker.NewHealth()
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
		return &Observability{Metrics: metrics, Health: health, Addr: a}, func() {
			stop()
			d.flushTraces()
		}, nil
	case err := <-errc:
		stop()
		return nil, nil, fmt.Errorf("health server: %w", err)
	}
}
