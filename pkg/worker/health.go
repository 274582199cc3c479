package worker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ReadyFunc reports nil when a component is ready to serve.
type ReadyFunc func() error

// Health aggregates readiness checks and serves /healthz, /readyz and
// /metrics. It is safe for concurrent use.
type Health struct {
	mu     sync.Mutex
	checks map[string]ReadyFunc
}

// NewHealth returns an empty Health: ready until a check says otherwise.
func NewHealth() *Health { return &Health{checks: map[string]ReadyFunc{}} }

// Add registers (or replaces) the readiness check called name.
func (h *Health) Add(name string, f ReadyFunc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.checks[name] = f
}

// Ready runs every check and joins their errors, naming each failing check.
func (h *Health) Ready() error {
	h.mu.Lock()
	names := make([]string, 0, len(h.checks))
	for n := range h.checks {
		names = append(names, n)
	}
	sort.Strings(names)
	checks := make([]ReadyFunc, len(names))
	for i, n := range names {
		checks[i] = h.checks[n]
	}
	h.mu.Unlock()
	var errs []error
	for i, f := range checks {
		if err := f(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", names[i], err))
		}
	}
	return errors.Join(errs...)
}

// Handler returns the HTTP handler for /healthz (process alive), /readyz
// (every check passes, else 503 with the reasons) and /metrics (gatherer).
func (h *Health) Handler(g prometheus.Gatherer) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := h.Ready(); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(strings.ReplaceAll(err.Error(), "\n", "; ") + "\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	// OpenMetrics (on request by Accept) carries exemplars: trace ids.
	mux.Handle("GET /metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	return mux
}

// Serve listens on addr and serves h until ctx is done, then shuts the
// server down gracefully. It returns an error when it cannot listen.
// The bound address is sent on bound (if not nil) once listening.
func Serve(ctx context.Context, addr string, h http.Handler, bound chan<- string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("could not listen on %s: %w", addr, err)
	}
	if bound != nil {
		bound <- ln.Addr().String()
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("health server: %w", err)
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
		return nil
	}
}
