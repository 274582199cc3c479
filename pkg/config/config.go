// Package config loads codali.config.json: model routing per phase,
// providers, limits, policy and contract files, redaction patterns,
// workspace, audit history and event settings. One function (Load) reads
// the file, applies defaults and environment fallbacks, and validates.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/redact"
	"github.com/codali-dev/codali/pkg/sandbox"
)

// ErrInvalid is wrapped by every configuration error.
var ErrInvalid = errors.New("invalid configuration")

// Phases that can be routed to a model.
var routedPhases = []string{"librarian", "architect", "builder", "critic"}

// Config is the content of codali.config.json.
type Config struct {
	// Providers names model providers that routes refer to. The names
	// "scripted", "ollama" and "openai" also work without an entry here.
	Providers map[string]llm.ProviderConfig `json:"providers,omitempty"`
	// Routing picks the provider and model of each phase. A missing phase
	// falls back to $CODALI_PROVIDER / $CODALI_MODEL, then to the scripted
	// provider with the bundled example script.
	Routing map[string]Route `json:"routing,omitempty"`
	// Limits bound each run.
	Limits Limits `json:"limits"`
	// Policy is the policy file (YAML or JSON) the builder's gate enforces;
	// empty uses the built-in default policy. Relative to the config file.
	Policy string `json:"policy,omitempty"`
	// Contract is the output-contract file whose SHA-256 tags audit events.
	// Relative to the config file.
	Contract string `json:"contract,omitempty"`
	// Redact adds secret patterns to the built-in ones.
	Redact Redact `json:"redact"`
	// Workspace configures per-run workspaces.
	Workspace Workspace `json:"workspace"`
	// Librarian bounds what the librarian reads.
	Librarian Librarian `json:"librarian"`
	// Critic configures verification.
	Critic Critic `json:"critic"`
	// RAO configures the audit history.
	RAO RAO `json:"rao"`
	// Events configures event sizes.
	Events Events `json:"events"`
	// Memory bounds the project's L1 memory.
	Memory Memory `json:"memory"`
	// Sandbox isolates the commands the builder and critic run: "bwrap"
	// (the default) or "none", or an object with mode, limits and extra
	// read-only toolchain paths (see Sandbox).
	Sandbox Sandbox `json:"sandbox"`
	// Docdex, when set, points the librarian, the builder's retrieval
	// tools and the memory hooks at a Docdex daemon (see docdex.go).
	Docdex *Docdex `json:"docdex,omitempty"`
	// Projects maps a project id to the repositories (absolute directories,
	// or URLs) whose runs may name it in options.project; a request naming
	// any other project is refused (see Project). Relative directories are
	// resolved against the config file.
	Projects map[string][]string `json:"projects,omitempty"`
	// Context configures the Cognitive Protocol's user and global scopes.
	Context Context `json:"context"`
	// Tracing says how handlings join traces (the exporter is configured
	// by the OpenTelemetry environment).
	Tracing Tracing `json:"tracing"`

	dir string
}

// Route is one phase's model choice.
type Route struct {
	// Provider is a name from Providers or a provider type.
	Provider string `json:"provider"`
	// Model is the model name.
	Model string `json:"model,omitempty"`
	// Temperature is the sampling temperature.
	Temperature float64 `json:"temperature,omitempty"`
	// Format is how the answer's JSON Schema constrains the model: "" or
	// "json" send the schema in the server's structured-output field
	// (Ollama format, OpenAI response_format); "gbnf" sends a grammar
	// generated from the schema (llama.cpp servers).
	Format string `json:"format,omitempty"`
}

// Limits bound a run (codali-cognitive-architecture §7).
type Limits struct {
	// MaxSteps bounds the builder's tool-loop turns per attempt. Default 12.
	MaxSteps int `json:"maxSteps"`
	// MaxToolCalls bounds tool executions per attempt. Default 40.
	MaxToolCalls int `json:"maxToolCalls"`
	// MaxRetries bounds critic→architect retries per run; 0 turns retries
	// off. Default 3.
	MaxRetries int `json:"maxRetries"`
	// TimeoutMS bounds one phase handler. Default 300000.
	TimeoutMS int `json:"timeoutMs"`
	// DrainTimeoutMS bounds how long a stopping service waits for in-flight
	// handlers before cancelling them (their events are then redelivered
	// elsewhere). Default 30000; keep it below the pod's grace period.
	DrainTimeoutMS int `json:"drainTimeoutMs"`
	// ApprovalTimeoutMS bounds how long a run parked for approval waits
	// for its decisions before it fails with approval_timeout. Default
	// 86400000 (a day).
	ApprovalTimeoutMS int `json:"approvalTimeoutMs"`
	// MaxRunTokens bounds the model tokens of a run (0: no limit); a run
	// that reaches it parks with budget_exhausted. options.budget of a
	// request overrides it.
	MaxRunTokens int `json:"maxRunTokens"`
	// MaxRunCost bounds a run's model cost, priced by
	// providers.<p>.pricing (0: no limit).
	MaxRunCost float64 `json:"maxRunCost"`
}

// Timeout is TimeoutMS as a duration.
func (l Limits) Timeout() time.Duration { return time.Duration(l.TimeoutMS) * time.Millisecond }

// Redact lists extra secret patterns (Go regular expressions).
type Redact struct {
	Patterns []string `json:"patterns,omitempty"`
}

// Workspace configures where runs are materialised.
type Workspace struct {
	// Root holds one directory per run and attempt. Default: the system
	// temporary directory's codali-workspaces.
	Root string `json:"root,omitempty"`
	// Keep leaves workspaces on disk after a run for inspection.
	Keep bool `json:"keep,omitempty"`
	// AllowedRoots, when not empty, restricts requests' repo.path to
	// directories inside one of these (after resolving symlinks); other
	// paths end the run failed. Relative to the config file.
	AllowedRoots []string `json:"allowedRoots,omitempty"`
	// MaxBases bounds the prepared repository states cached under
	// Root/.bases (the least recently used go first). Default 32.
	MaxBases int `json:"maxBases,omitempty"`
	// AllowedHosts, when not empty, restricts repo.url to these hosts (an
	// entry "*.example.com" matches every subdomain). With allowedRoots
	// set, local and file:// URLs must lie inside the roots as well.
	AllowedHosts []string `json:"allowedHosts,omitempty"`
	// Spares is how many ready copies of each repository state in use are
	// kept beside the workspaces, made in the background, so a phase's
	// workspace is ready when its event arrives. Default 1; 0 makes every
	// workspace when it is needed.
	Spares *int `json:"spares,omitempty"`
}

// DefaultSpares is workspace.spares when not set.
const DefaultSpares = 1

// SpareCount is Spares, or DefaultSpares when not set.
func (w Workspace) SpareCount() int {
	if w.Spares == nil {
		return DefaultSpares
	}
	return *w.Spares
}

// Sandbox configures command isolation. In the file it is either a mode
// string ("bwrap" or "none") or an object:
// {"mode": "bwrap", "limits": {"cpuSeconds": 600, "memoryBytes": 8589934592,
// "processes": 1024, "fileBytes": 1073741824, "openFiles": 4096,
// "tmpBytes": 1073741824},
// "readOnly": ["/opt/toolchain"]}. "none" runs commands without isolation
// and must be set explicitly; verdicts then say so.
type Sandbox struct {
	sandbox.Config
}

// UnmarshalJSON accepts a mode string or a configuration object (unknown
// keys are errors).
func (s *Sandbox) UnmarshalJSON(b []byte) error {
	var mode string
	if err := json.Unmarshal(b, &mode); err == nil {
		s.Config = sandbox.Config{Mode: sandbox.Mode(mode)}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var c sandbox.Config
	if err := dec.Decode(&c); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	s.Config = c
	return nil
}

// Librarian bounds the context bundle.
type Librarian struct {
	// MaxFiles bounds the files listed. Default 2000.
	MaxFiles int `json:"maxFiles"`
	// MaxFileBytes skips larger files when reading. Default 256 KiB.
	MaxFileBytes int64 `json:"maxFileBytes"`
	// MaxSnippets bounds the snippets in the bundle. Default 8.
	MaxSnippets int `json:"maxSnippets"`
	// SnippetLines is the size of a snippet window. Default 80.
	SnippetLines int `json:"snippetLines"`
	// IndexCacheDir keeps built-in indexes per repository commit (or
	// content hash), so a second run does not re-scan. Default: the user
	// cache directory's codali/index; "off" keeps indexes in memory only.
	// Relative to the config file.
	IndexCacheDir string `json:"indexCacheDir,omitempty"`
	// PromptTokens bounds the context (structure first, then code) the
	// architect's and builder's prompts take from the bundle, in estimated
	// tokens (4 bytes each). Default 6000.
	PromptTokens int `json:"promptTokens,omitempty"`
}

// Critic configures verification commands.
type Critic struct {
	// VerifyTimeoutMS bounds a verification command without its own
	// timeout. Default 120000.
	VerifyTimeoutMS int `json:"verifyTimeoutMs"`
	// OutputBytes keeps this much of each command's output. Default 16 KiB.
	OutputBytes int `json:"outputBytes"`
	// AlwaysReview turns the Cognitive Protocol's fast path off: the
	// model review runs even for a confident, clean attempt.
	AlwaysReview bool `json:"alwaysReview,omitempty"`
	// FastPathMaxLines bounds the change the fast path may leave
	// unreviewed: a change of more added plus removed lines is always
	// reviewed, however confident the attempt. Default 40.
	FastPathMaxLines int `json:"fastPathMaxLines"`
}

// RAO configures the audit history.
type RAO struct {
	// CheckpointEvery stores a full snapshot every N events. Default 10.
	CheckpointEvery int `json:"checkpointEvery"`
	// MaxEvents caps a run's history; older events are compacted to a
	// checkpoint boundary. Default 200.
	MaxEvents int `json:"maxEvents"`
	// MaxAgeHours bounds how long histories are kept; 0 keeps them forever.
	MaxAgeHours int `json:"maxAgeHours,omitempty"`
	// MaxBytes bounds the history stream's size; 0 means unlimited.
	MaxBytes int64 `json:"maxBytes,omitempty"`
}

// Events configures event sizes.
type Events struct {
	// MaxEventBytes is the largest event accepted or produced. Default 1 MiB.
	MaxEventBytes int `json:"maxEventBytes"`
	// ArtifactThresholdBytes: context bundles and diffs larger than this go
	// to the object store and the event carries a reference. Default 256 KiB.
	ArtifactThresholdBytes int `json:"artifactThresholdBytes"`
}

// Tracing says how handlings join traces.
type Tracing struct {
	// AgentTraceContext is what the trace context (traceparent) of an
	// event an agent publishes (a request, a decision) does to the span
	// of its handling: TraceContextParent (the default) makes the span
	// its child, so the run joins the agent's trace; TraceContextLink
	// starts the span in the run's own trace, with a link to the agent's
	// context. Events the services publish are always followed.
	AgentTraceContext string `json:"agentTraceContext"`
}

// Values of Tracing.AgentTraceContext.
const (
	TraceContextParent = "parent"
	TraceContextLink   = "link"
)

// Memory bounds the project's L1 memory.
type Memory struct {
	// MaxL1Entries keeps at most this many lessons. Default 32.
	MaxL1Entries int `json:"maxL1Entries"`
	// LessonAfterFailures: a run's Nth failed attempt writes a repository
	// lesson (spec §6: "3x failures"). Default 3.
	LessonAfterFailures int `json:"lessonAfterFailures"`
	// MaxGoldenExamples bounds the golden examples kept per project; the
	// oldest are evicted. Default 50.
	MaxGoldenExamples int `json:"maxGoldenExamples"`
}

// Default returns the configuration used when no file is given.
func Default() *Config {
	c := &Config{}
	c.setDefaults()
	return c
}

func (c *Config) setDefaults() {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.Limits.MaxSteps, 12)
	def(&c.Limits.MaxToolCalls, 40)
	def(&c.Limits.MaxRetries, 3)
	def(&c.Limits.TimeoutMS, 300000)
	def(&c.Limits.DrainTimeoutMS, 30000)
	def(&c.Limits.ApprovalTimeoutMS, 86400000)
	def(&c.Librarian.MaxFiles, 2000)
	if c.Librarian.MaxFileBytes == 0 {
		c.Librarian.MaxFileBytes = 256 << 10
	}
	def(&c.Librarian.MaxSnippets, 8)
	def(&c.Librarian.SnippetLines, 80)
	def(&c.Librarian.PromptTokens, 6000)
	def(&c.Critic.VerifyTimeoutMS, 120000)
	def(&c.Critic.OutputBytes, 16<<10)
	def(&c.Critic.FastPathMaxLines, 40)
	def(&c.RAO.CheckpointEvery, 10)
	def(&c.RAO.MaxEvents, 200)
	def(&c.Events.MaxEventBytes, 1<<20)
	def(&c.Events.ArtifactThresholdBytes, 256<<10)
	def(&c.Memory.MaxL1Entries, 32)
	def(&c.Memory.LessonAfterFailures, 3)
	def(&c.Memory.MaxGoldenExamples, 50)
	if c.Workspace.Root == "" {
		c.Workspace.Root = filepath.Join(os.TempDir(), "codali-workspaces")
	}
	if c.Tracing.AgentTraceContext == "" {
		c.Tracing.AgentTraceContext = TraceContextParent
	}
}

// Load reads the configuration file at path (empty: defaults only),
// applies defaults, resolves relative file paths against the file's
// directory, and validates. Unknown keys are errors. Every error wraps
// ErrInvalid; validation problems are all reported at once.
func Load(path string) (*Config, error) {
	if path == "" {
		return Default(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: could not read %s: %w", ErrInvalid, path, err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.dir = filepath.Dir(path)
	c.Policy = c.resolve(c.Policy)
	c.Contract = c.resolve(c.Contract)
	c.Workspace.Root = c.resolve(c.Workspace.Root)
	if c.Librarian.IndexCacheDir != "off" {
		c.Librarian.IndexCacheDir = c.resolve(c.Librarian.IndexCacheDir)
	}
	c.Context.UserDir = c.resolve(c.Context.UserDir)
	c.Context.GlobalDir = c.resolve(c.Context.GlobalDir)
	for i, r := range c.Workspace.AllowedRoots {
		c.Workspace.AllowedRoots[i] = c.resolve(r)
	}
	for name, repos := range c.Projects {
		for i, r := range repos {
			if !strings.Contains(r, "://") && !strings.Contains(r, ":") {
				repos[i] = c.resolve(r)
			}
		}
		c.Projects[name] = repos
	}
	for name, p := range c.Providers {
		p.Script = c.resolve(p.Script)
		c.Providers[name] = p
	}
	return c, nil
}

// Parse decodes configuration JSON, applies defaults and validates.
func Parse(data []byte) (*Config, error) {
	// Decode onto the defaults: a key that is present wins, even with a
	// zero value (limits.maxRetries 0 turns retries off; a zero where a
	// positive number is needed is reported by Validate).
	c := *Default()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data after the configuration object", ErrInvalid)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

func (c *Config) resolve(p string) string {
	if p == "" || filepath.IsAbs(p) || c.dir == "" {
		return p
	}
	return filepath.Join(c.dir, p)
}

// Validate reports every problem at once, each wrapping ErrInvalid.
func (c *Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...))
	}
	for name, p := range c.Providers {
		if err := p.Validate(); err != nil {
			bad("providers.%s: %v", name, strings.ReplaceAll(err.Error(), "\n", "; "))
		}
	}
	for phase, r := range c.Routing {
		if !contains(routedPhases, phase) {
			bad("routing.%s: unknown phase (want one of %s)", phase, strings.Join(routedPhases, ", "))
			continue
		}
		if r.Provider == "" {
			bad("routing.%s.provider is required", phase)
		} else if _, ok := c.Providers[r.Provider]; !ok && !isProviderType(r.Provider) {
			bad("routing.%s.provider %q is neither a configured provider nor a provider type", phase, r.Provider)
		}
		if r.Format != "" && r.Format != llm.FormatJSON && r.Format != llm.FormatGBNF {
			bad("routing.%s.format %q (want \"json\" or \"gbnf\")", phase, r.Format)
		}
		if r.Temperature < 0 || r.Temperature > 2 {
			bad("routing.%s.temperature %v (want 0..2)", phase, r.Temperature)
		}
	}
	positive := func(name string, v int) {
		if v < 1 {
			bad("%s %d (must be >= 1)", name, v)
		}
	}
	positive("limits.maxSteps", c.Limits.MaxSteps)
	positive("limits.maxToolCalls", c.Limits.MaxToolCalls)
	positive("limits.timeoutMs", c.Limits.TimeoutMS)
	if c.Limits.MaxRunTokens < 0 || !(c.Limits.MaxRunCost >= 0) || math.IsInf(c.Limits.MaxRunCost, 0) {
		bad("limits.maxRunTokens %d and limits.maxRunCost %g must be finite and >= 0", c.Limits.MaxRunTokens, c.Limits.MaxRunCost)
	}
	// A longer wait than the park store and the deadline schedules keep
	// would let a parked run's park and deadline expire: it would never end.
	if maxMS := events.MaxApprovalTimeout.Milliseconds(); c.Limits.ApprovalTimeoutMS < 1000 || int64(c.Limits.ApprovalTimeoutMS) > maxMS {
		bad("limits.approvalTimeoutMs %d (must be between 1000 and %d, %s)", c.Limits.ApprovalTimeoutMS, maxMS, events.MaxApprovalTimeout)
	}
	if c.Limits.DrainTimeoutMS < 1000 {
		bad("limits.drainTimeoutMs %d (must be >= 1000)", c.Limits.DrainTimeoutMS)
	}
	if c.Limits.MaxRetries < 0 || c.Limits.MaxRetries > 20 {
		bad("limits.maxRetries %d (allowed 0..20)", c.Limits.MaxRetries)
	}
	positive("librarian.maxFiles", c.Librarian.MaxFiles)
	positive("librarian.maxSnippets", c.Librarian.MaxSnippets)
	positive("librarian.snippetLines", c.Librarian.SnippetLines)
	if c.Librarian.MaxFileBytes < 1 {
		bad("librarian.maxFileBytes %d (must be >= 1)", c.Librarian.MaxFileBytes)
	}
	positive("librarian.promptTokens", c.Librarian.PromptTokens)
	if c.Docdex != nil {
		d := *c.Docdex
		d.setDefaults()
		d.validate(bad)
	}
	positive("critic.verifyTimeoutMs", c.Critic.VerifyTimeoutMS)
	positive("critic.outputBytes", c.Critic.OutputBytes)
	positive("critic.fastPathMaxLines", c.Critic.FastPathMaxLines)
	positive("rao.checkpointEvery", c.RAO.CheckpointEvery)
	if c.RAO.MaxEvents < c.RAO.CheckpointEvery {
		bad("rao.maxEvents %d is below rao.checkpointEvery %d", c.RAO.MaxEvents, c.RAO.CheckpointEvery)
	}
	if c.RAO.MaxAgeHours < 0 || c.RAO.MaxBytes < 0 {
		bad("rao retention must not be negative")
	}
	if c.Events.MaxEventBytes < 4096 || c.Events.MaxEventBytes > 8<<20 {
		bad("events.maxEventBytes %d (allowed 4096..8388608)", c.Events.MaxEventBytes)
	}
	if c.Events.ArtifactThresholdBytes < 1 || c.Events.ArtifactThresholdBytes >= c.Events.MaxEventBytes {
		bad("events.artifactThresholdBytes %d must be between 1 and maxEventBytes", c.Events.ArtifactThresholdBytes)
	}
	positive("memory.maxL1Entries", c.Memory.MaxL1Entries)
	if c.Workspace.Spares != nil && (*c.Workspace.Spares < 0 || *c.Workspace.Spares > 16) {
		bad("workspace.spares %d (must be 0 to 16)", *c.Workspace.Spares)
	}
	if c.Workspace.MaxBases < 0 {
		bad("workspace.maxBases %d (must be >= 0)", c.Workspace.MaxBases)
	}
	if err := c.Sandbox.Validate(); err != nil {
		bad("sandbox: %v", err)
	}
	positive("memory.lessonAfterFailures", c.Memory.LessonAfterFailures)
	positive("memory.maxGoldenExamples", c.Memory.MaxGoldenExamples)
	if t := c.Tracing.AgentTraceContext; t != TraceContextParent && t != TraceContextLink {
		bad("tracing.agentTraceContext %q (want %q or %q)", t, TraceContextParent, TraceContextLink)
	}
	for i, r := range c.Workspace.AllowedRoots {
		if r == "" {
			bad("workspace.allowedRoots[%d] is empty", i)
		}
	}
	for i, h := range c.Workspace.AllowedHosts {
		if h == "" || strings.ContainsAny(h, "/: ") {
			bad("workspace.allowedHosts[%d] %q is not a host name", i, h)
		}
	}
	for name, repos := range c.Projects {
		if name == "" || len(name) > 512 {
			bad("projects: project id %q must be 1..512 bytes", name)
		}
		if len(repos) == 0 {
			bad("projects.%s lists no repository", name)
		}
		for i, r := range repos {
			if r == "" {
				bad("projects.%s[%d] is empty", name, i)
			}
		}
	}
	for i, p := range c.Redact.Patterns {
		// The redactor's own rules (a pattern must compile and must not
		// match the empty string), so what validates also starts.
		if _, err := redact.New([]string{p}); err != nil {
			bad("redact.patterns[%d]: %v", i, err)
		}
	}
	return errors.Join(errs...)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func isProviderType(s string) bool {
	return s == llm.TypeScripted || s == llm.TypeOllama || s == llm.TypeOpenAI
}

// Resolved is a phase's route with its provider configuration.
type Resolved struct {
	// Name is the provider name used in logs and metrics.
	Name string
	// Provider configures the provider.
	Provider llm.ProviderConfig
	// Route is the phase's route.
	Route Route
}

// Route resolves the model route of a phase: routing.<phase>, else
// $CODALI_PROVIDER/$CODALI_MODEL (read through getenv), else the scripted
// provider. It returns an error wrapping ErrInvalid when the provider named
// by the environment is unknown.
func (c *Config) Route(phase string, getenv func(string) string) (Resolved, error) {
	r, ok := c.Routing[phase]
	if !ok {
		r = Route{Provider: getenv("CODALI_PROVIDER"), Model: getenv("CODALI_MODEL")}
		if r.Provider == "" {
			r.Provider = llm.TypeScripted
		}
	}
	if p, ok := c.Providers[r.Provider]; ok {
		return Resolved{Name: r.Provider, Provider: p, Route: r}, nil
	}
	if !isProviderType(r.Provider) {
		return Resolved{}, fmt.Errorf("%w: provider %q for phase %s is not configured", ErrInvalid, r.Provider, phase)
	}
	return Resolved{Name: r.Provider, Provider: llm.ProviderConfig{Type: r.Provider}, Route: r}, nil
}
