package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/codali-dev/codali/examples"
	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/services/architect"
	"github.com/codali-dev/codali/services/builder"
	"github.com/codali-dev/codali/services/critic"
	"github.com/codali-dev/codali/services/librarian"
	"github.com/codali-dev/codali/services/recorder"
	"github.com/nats-io/nats.go/jetstream"
)

// components lists every service that `codali up` can run in-process.
func components() map[string]app.Component {
	return map[string]app.Component{
		events.ServiceLibrarian: librarian.Component(),
		events.ServiceArchitect: architect.Component(),
		events.ServiceBuilder:   builder.Component(),
		events.ServiceCritic:    critic.Component(),
		events.ServiceRecorder:  recorder.Component(),
	}
}

// upOptions are the flags of `codali up`.
type upOptions struct {
	data, listen, http, workers, config, level string
	// nats, when set, is an external server or cluster to use instead of
	// the embedded server; replicas is the stream replication there.
	nats     string
	replicas int
	// checkpointEvery overrides rao.checkpointEvery when > 0.
	checkpointEvery int
	// ready, when set, receives the NATS URL once everything runs (tests).
	ready chan<- string
}

func cmdUp(ctx context.Context, c *cli, args []string) int {
	var o upOptions
	fs := c.newFlags("up", "up [--data DIR] [--listen HOST:PORT] [--http ADDR] [--workers all|none|LIST] [--config FILE] [--checkpoint-every N] [--log-level L] [--nats URLS --replicas N]")
	fs.StringVar(&o.data, "data", ".codali", "directory for JetStream storage and workspaces")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:4222", "NATS client address (HOST:PORT; port 0 picks a free one)")
	fs.StringVar(&o.http, "http", "127.0.0.1:8080", "health and metrics address")
	fs.StringVar(&o.workers, "workers", "all", "workers to run in-process: all, none, or a comma list of "+strings.Join(events.Services(), ","))
	fs.StringVar(&o.config, "config", c.getenv("CODALI_CONFIG"), "codali.config.json (env CODALI_CONFIG)")
	fs.StringVar(&o.level, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&o.nats, "nats", "", "use this external NATS server or cluster (comma-separated URLs) instead of the embedded server")
	fs.IntVar(&o.replicas, "replicas", 1, "with --nats: replicas of the streams and buckets it creates (3 on a cluster)")
	fs.IntVar(&o.checkpointEvery, "checkpoint-every", 0, "store a full snapshot every N audit events (overrides rao.checkpointEvery; 1 = every event)")
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		c.errorf("up: unexpected arguments: %s", strings.Join(pos, " "))
		return exitUsage
	}
	return c.up(ctx, o)
}

func (c *cli) up(ctx context.Context, o upOptions) int {
	names, err := parseWorkers(o.workers)
	if err != nil {
		c.errorf("up: %v", err)
		return exitUsage
	}
	host, port, err := splitHostPort(o.listen)
	if err != nil {
		c.errorf("up: --listen: %v", err)
		return exitUsage
	}
	cfg, err := config.Load(o.config)
	if err == nil {
		_, _, err = app.LoadGate(cfg)
	}
	if err != nil {
		c.errorf("up: %v", err)
		return exitUsage
	}
	if o.replicas == 0 {
		o.replicas = 1
	}
	if o.replicas < 1 || o.replicas > 5 || (o.nats == "" && o.replicas != 1) {
		c.errorf("up: --replicas must be 1..5, and other than 1 only with --nats")
		return exitUsage
	}
	if o.nats != "" {
		if err := (bus.ConnectOptions{URL: o.nats}).Validate(); err != nil {
			c.errorf("up: --nats: %v", err)
			return exitUsage
		}
	}
	if o.checkpointEvery < 0 {
		c.errorf("up: --checkpoint-every must be >= 1")
		return exitUsage
	}
	if o.checkpointEvery > 0 {
		cfg.RAO.CheckpointEvery = o.checkpointEvery
		if err := cfg.Validate(); err != nil {
			c.errorf("up: %v", err)
			return exitUsage
		}
	}
	log, err := app.NewLogger(c.stderr, o.level)
	if err != nil {
		c.errorf("up: %v", err)
		return exitUsage
	}
	if cfg.Workspace.Root == config.Default().Workspace.Root {
		cfg.Workspace.Root = filepath.Join(o.data, "workspaces")
	}
	if cfg.Librarian.IndexCacheDir == "" {
		// Built-in indexes are cached beside the data they describe.
		cfg.Librarian.IndexCacheDir = filepath.Join(o.data, "index")
	}
	if err := os.MkdirAll(o.data, 0o755); err != nil {
		c.errorf("up: could not create %s: %v", o.data, err)
		return exitFailure
	}
	unlock, err := lockData(o.data)
	if err != nil {
		c.errorf("up: %v", err)
		return exitUsage
	}
	defer unlock()
	url := o.nats
	if url == "" {
		srv, err := bus.StartEmbedded(bus.EmbeddedConfig{Host: host, Port: port, StoreDir: filepath.Join(o.data, "jetstream")})
		if err != nil {
			c.errorf("up: %v", err)
			if errors.Is(err, bus.ErrInvalidConfig) {
				return exitUsage
			}
			return exitFailure
		}
		defer srv.Shutdown()
		url = srv.ClientURL()
	}
	if err := c.serveUp(ctx, o, cfg, log, url, names); err != nil {
		c.errorf("up: %v", err)
		if errors.Is(err, config.ErrInvalid) || errors.Is(err, llm.ErrInvalidConfig) {
			return exitUsage
		}
		return exitFailure
	}
	fmt.Fprintln(c.stdout, "codali: stopped")
	return exitOK
}

func (c *cli) serveUp(ctx context.Context, o upOptions, cfg *config.Config, log *slog.Logger, url string, names []string) error {
	nc, err := bus.Connect(bus.ConnectOptions{URL: url, Name: "codali-up", Log: log})
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	// Health first: while provisioning waits for a fresh cluster, /readyz
	// says why it is not ready yet.
	obs, stop, err := app.Observe(ctx, nc, o.http)
	if err != nil {
		return err
	}
	defer stop()
	topo := app.TopologyFor(cfg, o.replicas)
	// The all-in-one owns its embedded server's configuration; on an
	// external cluster it only creates what is missing, like the services.
	topo.Update = o.nats == ""
	if err := bus.ProvisionRetrying(ctx, log, js, topo, nil, obs.Startup.Report); err != nil {
		if ctx.Err() != nil {
			return nil // stopped while starting
		}
		return err
	}
	script, err := examples.HelloScript()
	if err != nil {
		return fmt.Errorf("bundled example script: %w", err)
	}
	deps, err := app.NewDepsRetrying(ctx, cfg, js, log, time.Now, c.getenv, script, obs.Startup.Report)
	if err != nil {
		return err
	}
	deps.Registerer = obs.Registry
	defer deps.Close()
	defer deps.FlushTraces()
	// Model routes are configuration: check them before announcing the
	// server, so a missing API key is a start-up error (exit 2).
	for _, n := range names {
		_, reviews := cfg.Routing[events.ServiceCritic]
		if n == events.ServiceArchitect || n == events.ServiceBuilder || n == events.ServiceCritic && reviews {
			if _, _, err := deps.Model(n); err != nil {
				return err
			}
		}
	}
	for _, n := range names {
		// Not ready until the worker consumes (RunComponents replaces this).
		obs.Health.Add(n, func() error { return errors.New("starting") })
	}
	obs.Startup.Done()
	workers := strings.Join(names, ",")
	if workers == "" {
		workers = "none"
	}
	fmt.Fprintf(c.stdout, "codali: NATS %s  health http://%s/readyz  workers %s\n", url, obs.Addr, workers)
	if o.ready != nil {
		o.ready <- url
	}
	comps := components()
	var run []app.Component
	for _, n := range names {
		run = append(run, comps[n])
	}
	if len(run) == 0 {
		<-ctx.Done()
		return nil
	}
	return app.RunComponents(ctx, deps, run, obs.Metrics, obs.Health)
}

func parseWorkers(s string) ([]string, error) {
	switch s {
	case "all", "":
		return events.Services(), nil
	case "none":
		return nil, nil
	}
	valid := map[string]bool{}
	for _, n := range events.Services() {
		valid[n] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		if !valid[n] {
			return nil, fmt.Errorf("--workers: unknown worker %q (want all, none or a list of %s)", n, strings.Join(events.Services(), ","))
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out, nil
}

func splitHostPort(s string) (string, int, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return "", 0, fmt.Errorf("%q is not HOST:PORT", s)
	}
	port, err := strconv.Atoi(s[i+1:])
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("%q has no valid port", s)
	}
	if port == 0 {
		port = -1 // nats-server: pick a random port
	}
	host := strings.Trim(s[:i], "[]")
	if host == "" {
		host = "127.0.0.1"
	}
	return host, port, nil
}
