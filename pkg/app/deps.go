// Package app hosts Codali services: it builds the dependencies every
// phase shares (configuration, JetStream, workspaces, artifacts, policy,
// redaction, project state, model providers), runs one worker runtime per
// service with health and metrics, and drains on shutdown. The standalone
// service binaries and `codali up` both use it.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/docdex"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/index"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/msgid"
	"github.com/codali-dev/codali/pkg/pmstate"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/redact"
	"github.com/codali-dev/codali/pkg/runclaim"
	"github.com/codali-dev/codali/pkg/sandbox"
	"github.com/codali-dev/codali/pkg/telemetry"
	"github.com/codali-dev/codali/pkg/workspace"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
)

// Deps are the dependencies shared by the services of one process. Fields
// are set by NewDeps and read-only afterwards; Model is safe for
// concurrent use.
type Deps struct {
	// Config is the loaded codali.config.json.
	Config *config.Config
	// JS is the JetStream handle.
	JS jetstream.JetStream
	// Log is the process logger.
	Log *slog.Logger
	// Now stamps produced events.
	Now events.Clock
	// Getenv reads the environment (model API keys, provider fallbacks).
	Getenv func(string) string
	// Workspaces materialises repositories per run and attempt.
	Workspaces *workspace.Manager
	// Sandbox isolates every command run in a workspace (RunCommand).
	Sandbox *sandbox.Sandbox
	// Artifacts keeps large bundles and diffs.
	Artifacts *artifacts.Store
	// Policy is the gate the builder and critic enforce.
	Policy *policy.Policy
	// PolicyHash and ContractHash tag audit events.
	PolicyHash, ContractHash string
	// Redactor removes secrets from everything recorded.
	Redactor *redact.Redactor
	// PM is the project state store (goal tree and L1 memory).
	PM *pmstate.Store
	// Claims says which request each run id belongs to; every phase admits
	// only the events of a run's recorded request.
	Claims *runclaim.Store
	// Bundled is the bundled example script of the scripted provider.
	Bundled *llm.Script
	// Docdex is the Docdex daemon's client, nil when no daemon is
	// configured; DocdexSettings are its effective settings.
	Docdex         *docdex.Client
	DocdexSettings *config.Docdex
	// Indexes caches the built-in index per repository state (librarian,
	// builder retrieval tools).
	Indexes *index.Cache
	// Registerer, when set, receives service-level metrics (for instance
	// the recorder's runs by verdict). Hosts set it to their registry.
	Registerer prometheus.Registerer
	// NewProvider, when set, builds the model providers instead of llm.New
	// (`codali rao rerun` answers from recorded exchanges). Set it before
	// the first Model call.
	NewProvider func(name string, c llm.ProviderConfig) (llm.Provider, error)
	// MsgIDs is the message id key (events.BucketKeys): the Nats-Msg-Id
	// of every event a service publishes into the work stream is made with
	// it (worker.EventMsg). NewDeps fails without it, so a service that
	// cannot read the key is not ready rather than publishing ids an agent
	// could predict.
	MsgIDs msgid.Key
	// Tracing exports OpenTelemetry spans when the OTEL_* environment
	// asks for it (see telemetry.Setup); never nil after NewDeps.
	Tracing *telemetry.Tracing

	mu     sync.Mutex
	models map[string]llm.Provider
	usageState
	// failedExchanges keeps the exchanges of handlings that failed for
	// good until the runtime's failed event takes them.
	failedExchanges pendingExchanges
}

// NewDeps builds the shared dependencies: it loads the policy (or the
// default), hashes the policy and contract, compiles redaction patterns and
// opens the artifacts and project-state buckets and reads the message id
// key (which bus.Provision creates). bundled may be nil when no scripted default is wanted.
func NewDeps(ctx context.Context, cfg *config.Config, js jetstream.JetStream, log *slog.Logger, now events.Clock, getenv func(string) string, bundled *llm.Script) (*Deps, error) {
	red, err := redact.New(cfg.Redact.Patterns)
	if err != nil {
		return nil, fmt.Errorf("could not compile redaction patterns: %w", err)
	}
	// What the services log passes through the redaction too.
	log = redactedLogger(log, red)
	d := &Deps{Config: cfg, JS: js, Log: log, Now: now, Getenv: getenv, Bundled: bundled, Redactor: red, models: map[string]llm.Provider{}}
	d.Workspaces = &workspace.Manager{Root: cfg.Workspace.Root, Keep: cfg.Workspace.Keep, AllowedRoots: cfg.Workspace.AllowedRoots,
		MaxBases: cfg.Workspace.MaxBases, AllowedHosts: cfg.Workspace.AllowedHosts, Spares: cfg.Workspace.SpareCount(), Log: log}
	if d.Sandbox, err = NewSandbox(cfg); err != nil {
		return nil, err
	}
	if d.Policy, d.ContractHash, err = LoadGate(cfg); err != nil {
		return nil, err
	}
	d.PolicyHash = d.Policy.Hash()
	if d.Docdex, d.DocdexSettings, err = NewDocdex(cfg, getenv); err != nil {
		return nil, err
	}
	d.Indexes = index.NewCache(IndexCacheDir(cfg))
	if d.Artifacts, err = artifacts.Open(ctx, js); err != nil {
		return nil, err
	}
	if d.Claims, err = runclaim.Open(ctx, js, runclaim.WithProjects(cfg.Project)); err != nil {
		return nil, err
	}
	if d.MsgIDs, err = bus.MsgIDKey(ctx, js); err != nil {
		return nil, err
	}
	kv, err := js.KeyValue(ctx, events.BucketPMState)
	if err != nil {
		return nil, fmt.Errorf("could not open bucket %s: %w", events.BucketPMState, err)
	}
	// The project state is read through the bucket's leader: an update
	// that finds nothing to change (the critic pruning the goal the
	// architect just added) writes nothing, so a read from a replica
	// that lags would go unchecked (see bus.LeaderGet). The learning
	// record read for a prompt is any replica's (pmstate.WithReplicaReads).
	if d.PM, err = pmstate.New(bus.LeaderReads(js, kv), pmstate.WithReplicaReads(kv), pmstate.WithMaxL1Entries(cfg.Memory.MaxL1Entries),
		pmstate.WithLogger(log)); err != nil {
		return nil, err
	}
	// Last, so a failed (and retried) start leaves no exporter running.
	if d.Tracing, err = telemetry.Setup(ctx, "codali", getenv); err != nil {
		return nil, fmt.Errorf("%w: %w", config.ErrInvalid, err)
	}
	return d, nil
}

// NewDepsRetrying is NewDeps retried with backoff while the buckets
// cannot be opened because the cluster cannot answer yet (leaders being
// elected); other errors are returned at once. Failures are reported to status.
func NewDepsRetrying(ctx context.Context, cfg *config.Config, js jetstream.JetStream, log *slog.Logger, now events.Clock, getenv func(string) string, bundled *llm.Script, status func(error)) (*Deps, error) {
	var d *Deps
	err := bus.Retry(ctx, log, "opening buckets", bus.RetryPolicy{Permanent: notTransient}, status, func(ctx context.Context) error {
		actx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		var err error
		d, err = NewDeps(actx, cfg, js, log, now, getenv, bundled)
		return err
	})
	return d, err
}

// notTransient reports errors no retry can cure: configuration errors,
// and anything but a cluster that cannot answer yet (bus.IsTransient) —
// a bucket that does not exist after provisioning stays missing.
func notTransient(err error) bool {
	if errors.Is(err, config.ErrInvalid) || errors.Is(err, llm.ErrInvalidConfig) || errors.Is(err, bus.ErrInvalidConfig) {
		return true
	}
	return !bus.IsTransient(err)
}

// Model returns the provider and route of a phase, creating the provider
// on first use. Errors wrap config.ErrInvalid or llm.ErrInvalidConfig.
func (d *Deps) Model(phase string) (llm.Provider, config.Resolved, error) {
	r, err := d.Config.Route(phase, d.Getenv)
	if err != nil {
		return nil, r, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if p, ok := d.models[r.Name]; ok {
		return p, r, nil
	}
	var p llm.Provider
	if d.NewProvider != nil {
		p, err = d.NewProvider(r.Name, r.Provider)
	} else {
		p, err = llm.New(r.Provider, d.Getenv, d.Bundled, llm.WithLogger(d.Log))
	}
	if err != nil {
		return nil, r, fmt.Errorf("could not create model provider %q for %s: %w", r.Name, phase, err)
	}
	p = d.recordModel(modelActivity{telemetry.TraceModel(p, r.Provider.Type, d.redactText())})
	d.models[r.Name] = p
	return p, r, nil
}

// redactText is the Redactor's String, or nil without a Redactor.
func (d *Deps) redactText() func(string) string {
	if d.Redactor == nil {
		return nil
	}
	return d.Redactor.String
}

// CloseWorkspace removes a workspace, logging (not failing on) an error:
// the run's result does not depend on the clean-up.
func (d *Deps) CloseWorkspace(ws interface{ Close() error }) {
	if err := ws.Close(); err != nil {
		d.Log.Warn("could not remove workspace", "err", err)
	}
}

// LoadGate loads the configured policy (or the default) and hashes the
// output contract. Programs call it right after loading the configuration,
// so a bad policy or contract file is a configuration error before
// anything starts.
func LoadGate(cfg *config.Config) (*policy.Policy, string, error) {
	p := policy.Default()
	if cfg.Policy != "" {
		var err error
		if p, err = policy.Load(cfg.Policy); err != nil {
			return nil, "", fmt.Errorf("%w: could not load policy: %w", config.ErrInvalid, err)
		}
	}
	contract := ""
	if cfg.Contract != "" {
		var err error
		if contract, err = policy.ContractHashFile(cfg.Contract); err != nil {
			return nil, "", fmt.Errorf("%w: could not hash contract: %w", config.ErrInvalid, err)
		}
	}
	return p, contract, nil
}

// NewDocdex returns the Docdex client the configuration and environment
// ask for, or nil when no daemon is configured. Errors wrap
// config.ErrInvalid.
func NewDocdex(cfg *config.Config, getenv func(string) string) (*docdex.Client, *config.Docdex, error) {
	set, token, err := cfg.DocdexSettings(getenv)
	if err != nil || set == nil {
		return nil, nil, err
	}
	c, err := docdex.New(docdex.Options{URL: set.URL, Token: token, RepoID: set.RepoID, AgentID: set.AgentID,
		Timeout: set.Timeout(), MaxWait: set.MaxWait()})
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", config.ErrInvalid, err)
	}
	return c, set, nil
}

// IndexCacheDir is where built-in indexes are cached on disk:
// librarian.indexCacheDir, else the user cache directory's codali/index;
// "" (memory only) for "off" or when there is no user cache directory.
func IndexCacheDir(cfg *config.Config) string {
	switch dir := cfg.Librarian.IndexCacheDir; dir {
	case "off":
		return ""
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(base, "codali", "index")
	default:
		return dir
	}
}

// SetModel makes every route named name use p instead of the provider the
// configuration describes (for programs that embed the services with
// their own provider, and for tests). Safe for concurrent use.
func (d *Deps) SetModel(name string, p llm.Provider) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.models == nil {
		d.models = map[string]llm.Provider{}
	}
	d.models[name] = p
}
