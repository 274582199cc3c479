package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/natsauth"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Exit codes of service binaries and the CLI.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// NewLogger returns a JSON slog logger at the given level ("debug",
// "info", "warn", "error"); it returns an error for another level.
func NewLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", level)
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// NewRegistry returns a Prometheus registry with the Go and process
// collectors and the worker metrics registered.
func NewRegistry() (*prometheus.Registry, *worker.Metrics, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m, err := worker.NewMetrics(reg)
	if err != nil {
		return nil, nil, err
	}
	return reg, m, nil
}

// Main is the whole program of a standalone service binary: it parses
// flags (--nats, --http, --config, auth flags, --log-level), connects,
// provisions the streams and its consumer, serves /healthz, /readyz and
// /metrics, runs the component until SIGINT or SIGTERM, drains and exits.
// It returns the process exit code: 2 for usage and configuration errors.
func Main(args []string, stdout, stderr io.Writer, getenv func(string) string, comp Component, bundled *llm.Script) int {
	fs := flag.NewFlagSet(comp.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var conn bus.ConnectOptions
	conn.Bind(fs, getenv)
	httpAddr := fs.String("http", envOr(getenv, "CODALI_HTTP", ":8080"), "address of the health and metrics server (env CODALI_HTTP)")
	cfgPath := fs.String("config", getenv("CODALI_CONFIG"), "codali.config.json (env CODALI_CONFIG)")
	level := fs.String("log-level", envOr(getenv, "CODALI_LOG_LEVEL", "info"), "log level: debug, info, warn, error")
	replicas := fs.Int("replicas", 1, "stream replicas when this service provisions them (3 on a cluster)")
	provision := fs.String("provision", envOr(getenv, "CODALI_PROVISION", "create"), "streams, consumer and buckets at start-up: create (only what is missing), update (bring to this configuration), none (env CODALI_PROVISION)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s [flags]\n\nRuns the Codali %s service against a NATS JetStream server.\n\n", comp.Name, comp.Name)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected arguments: %s\n", comp.Name, strings.Join(fs.Args(), " "))
		return ExitUsage
	}
	log, err := NewLogger(stderr, *level)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", comp.Name, err)
		return ExitUsage
	}
	cfg, err := config.Load(*cfgPath)
	if err == nil {
		_, _, err = LoadGate(cfg)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", comp.Name, err)
		return ExitUsage
	}
	if *provision != "create" && *provision != "update" && *provision != "none" {
		fmt.Fprintf(stderr, "%s: --provision %q: want create, update or none\n", comp.Name, *provision)
		return ExitUsage
	}
	conn.Name = "codali-" + comp.Name
	// Its replies come to its own identity's inboxes, the only ones it may
	// read (a service connects as the identity named after it).
	conn.DefaultInboxPrefix = natsauth.InboxPrefix(comp.Name)
	if err := conn.Validate(); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", comp.Name, err)
		return ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	topo := TopologyFor(cfg, *replicas)
	topo.Update = *provision == "update"
	if *provision == "none" {
		topo = bus.Topology{}
	}
	if err := serve(ctx, log, conn, cfg, *httpAddr, topo, *provision != "none", getenv, comp, bundled); err != nil {
		log.Error("service stopped", "err", err)
		return ExitFailure
	}
	return ExitOK
}

func serve(ctx context.Context, log *slog.Logger, conn bus.ConnectOptions, cfg *config.Config, httpAddr string, topo bus.Topology, provision bool, getenv func(string) string, comp Component, bundled *llm.Script) error {
	conn.Log = log
	nc, err := bus.Connect(conn)
	if err != nil {
		return err
	}
	defer nc.Drain() //nolint:errcheck // best effort on exit
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("could not open JetStream: %w", err)
	}
	obs, stop, err := Observe(ctx, nc, httpAddr)
	if err != nil {
		return err
	}
	defer stop()
	log.Info("serving health", "http", obs.Addr)
	if provision {
		if err := bus.ProvisionRetrying(ctx, log, js, topo, []string{comp.Name}, obs.Startup.Report); err != nil {
			if ctx.Err() != nil {
				return nil // shut down while starting
			}
			return err
		}
	}
	deps, err := NewDepsRetrying(ctx, cfg, js, log, time.Now, getenv, bundled, obs.Startup.Report)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	deps.Registerer = obs.Registry
	defer deps.Close()
	defer deps.FlushTraces()
	// Not ready until the component consumes (RunComponents replaces this).
	obs.Health.Add(comp.Name, func() error { return errors.New("starting") })
	obs.Startup.Done()
	log.Info("starting", "nats", bus.Redacted(conn.Resolved().URL), "http", obs.Addr)
	return RunComponents(ctx, deps, []Component{comp}, obs.Metrics, obs.Health)
}

// TopologyFor derives the stream topology from the configuration.
func TopologyFor(cfg *config.Config, replicas int) bus.Topology {
	return bus.Topology{
		Replicas:    replicas,
		RAOMaxAge:   time.Duration(cfg.RAO.MaxAgeHours) * time.Hour,
		RAOMaxBytes: cfg.RAO.MaxBytes,
	}
}

func envOr(getenv func(string) string, key, fallback string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return fallback
}
