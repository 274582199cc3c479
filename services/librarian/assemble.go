package librarian

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/docdex"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/index"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/redact"
)

// Bounds of the structure put into a bundle.
const (
	// maxQueries is the spec's "1-3 focused queries".
	maxQueries = 3
	// likelyFiles bounds the files whose symbols, AST and impact are read.
	likelyFiles = 3
	// maxSymbolsPerFile bounds a file's symbols in the bundle.
	maxSymbolsPerFile = 40
	// openWindow bounds a Docdex snippet window ("small windows only").
	openWindow = 40
	// recallTopK bounds recalled lessons.
	recallTopK = 5
	// diagnosticsLimit bounds impact diagnostics per file.
	diagnosticsLimit = 20
	// defaultAgentID is the agent whose profile is read when neither the
	// request nor the configuration names one.
	defaultAgentID = "codali"
)

// ErrDocdexRequired is wrapped when docdex.required is set and the daemon
// cannot be used: the run fails with the reason.
var ErrDocdexRequired = errors.New("docdex is required but unavailable")

// Assembler builds context bundles: the Phase 1 sequence against Docdex
// when one is configured and reachable, the built-in index otherwise. It
// needs no message bus, so `codali context` uses it directly. Fields are
// read-only after construction; Assemble is safe for concurrent use.
type Assembler struct {
	Config *config.Config
	Policy *policy.Policy
	// PolicyHash tags the recorded gate decisions.
	PolicyHash string
	Redactor   *redact.Redactor
	// Docdex is the daemon's client (nil: built-in index only) and
	// DocdexSettings its settings.
	Docdex         *docdex.Client
	DocdexSettings *config.Docdex
	// Indexes caches built-in indexes.
	Indexes *index.Cache
	// Model returns the librarian's model when routing.librarian is set
	// (nil: heuristic queries only).
	Model func(phase string) (llm.Provider, config.Resolved, error)
	// Now is the wall clock staleness is judged by (index times are wall
	// clock times, not event times).
	Now func() time.Time
	Log *slog.Logger
}

// NewAssembler returns the assembler of a service's dependencies.
func NewAssembler(d *app.Deps) *Assembler {
	a := &Assembler{Config: d.Config, Policy: d.Policy, PolicyHash: d.PolicyHash, Redactor: d.Redactor, Docdex: d.Docdex,
		DocdexSettings: d.DocdexSettings, Indexes: d.Indexes, Now: time.Now, Log: d.Log}
	if _, ok := d.Config.Routing[events.ServiceLibrarian]; ok {
		a.Model = d.Model
	}
	return a
}

// Request identifies what to assemble for.
type Request struct {
	// RunID and Attempt identify the run (for model calls).
	RunID   string
	Attempt int
	// Req is the user's request.
	Req events.Requested
	// Root is the repository's directory.
	Root string
}

// Result is an assembled bundle and the retrieval calls made for it.
type Result struct {
	Bundle *events.ContextBundle
	Tools  []events.ToolExecution
	// Preferences are the request's explicit preferences not yet stored
	// (no Docdex, or Docdex failed): the caller keeps them in the KV store.
	Preferences []events.Preference
	// Spend is the model use of the query expansion (zero without a model).
	Spend events.Spend
}

// Assemble builds the bundle for a request. It fails, wrapping
// ErrDocdexRequired, when docdex.required is set and the daemon cannot be
// used, and with a plain error when the repository cannot be read.
func (a *Assembler) Assemble(ctx context.Context, r Request) (Result, error) {
	root, err := filepath.Abs(r.Root)
	if err != nil {
		return Result{}, fmt.Errorf("could not read repository: %w", err)
	}
	b := &events.ContextBundle{Request: r.Req.Request}
	rec := &recorder{policy: a.Policy, policyHash: a.PolicyHash, redactor: a.Redactor}
	var spent events.Spend
	b.Queries, spent = a.queries(ctx, r, b)
	b.PreferencesDetected = DetectPreferences(r.Req.Request)
	res := Result{Bundle: b, Spend: spent}
	done := false
	if a.Docdex != nil {
		ok, err := a.phase1(ctx, r, root, b, rec)
		if err != nil {
			return Result{}, err
		}
		done = ok
		if ok {
			res.Preferences = a.savePreferences(ctx, r, root, b, rec)
		}
	}
	if !done {
		if err := a.builtin(ctx, root, b); err != nil {
			return Result{}, err
		}
		res.Preferences = b.PreferencesDetected
	}
	b.Normalize()
	res.Tools = rec.calls
	return res, nil
}

// agentID is the request's agent, else the configured one, else the
// default.
func (a *Assembler) agentID(r Request) string {
	if r.Req.Options.AgentID != "" {
		return r.Req.Options.AgentID
	}
	if a.DocdexSettings != nil && a.DocdexSettings.AgentID != "" {
		return a.DocdexSettings.AgentID
	}
	return defaultAgentID
}

// likely picks the likely-to-change files among ranked paths: code files
// the symbol extractors know, in rank order, at most likelyFiles.
func likely(paths []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] || index.Lang(p) == "" {
			continue
		}
		seen[p] = true
		out = append(out, p)
		if len(out) == likelyFiles {
			break
		}
	}
	return out
}

// sparse reports whether the impact graph looks sparse: a likely file
// with neither importers nor imports.
func sparse(impacts []events.FileImpact) []string {
	var out []string
	for _, im := range impacts {
		if len(im.Inbound) == 0 && len(im.Outbound) == 0 {
			out = append(out, im.File)
		}
	}
	return out
}

// symbolSummary renders a file's symbols one per line for prompts.
func symbolSummary(syms []events.SymbolInfo) string {
	var lines []string
	for _, s := range syms {
		l := s.Signature
		if l == "" {
			l = s.Kind + " " + s.Name
		}
		if s.Doc != "" {
			l += " // " + s.Doc
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}
