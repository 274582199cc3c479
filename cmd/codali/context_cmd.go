package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/codali-dev/codali/examples"
	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/bundletext"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/index"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/redact"
	"github.com/codali-dev/codali/services/librarian"
)

// cmdContext prints the context bundle the librarian would build for a
// request, without a message bus or a pipeline run.
// "codali context export …" writes a run's Cognitive Protocol .context/
// instead (see cmdContextExport).
func cmdContext(ctx context.Context, c *cli, args []string) int {
	if len(args) > 0 && args[0] == "export" {
		return cmdContextExport(ctx, c, args)
	}
	fs := c.newFlags("context", `context --repo PATH [--config FILE] [--agent ID] [--json] "request"
       codali context export (RUN | --project P) DIR [--force]`)
	repo := fs.String("repo", "", "repository directory (required)")
	cfgPath := fs.String("config", c.getenv("CODALI_CONFIG"), "codali.config.json (env CODALI_CONFIG)")
	agent := fs.String("agent", "", "agent id for the Docdex profile (the request's options.agent_id)")
	asJSON := fs.Bool("json", false, "print the bundle as JSON (context_bundle.json)")
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	request := strings.TrimSpace(strings.Join(pos, " "))
	if *repo == "" || request == "" {
		c.errorf("context: --repo and a request are required")
		fs.Usage()
		return exitUsage
	}
	if fi, err := os.Stat(*repo); err != nil || !fi.IsDir() {
		c.errorf("context: --repo %s is not a directory", *repo)
		return exitUsage
	}
	a, err := c.assembler(*cfgPath)
	if err != nil {
		c.errorf("context: %v", err)
		return exitUsage
	}
	req := events.Requested{Request: request, Repo: events.RepoRef{Path: *repo}, Options: events.RunOptions{AgentID: *agent}}
	res, err := a.Assemble(ctx, librarian.Request{RunID: "context", Attempt: 1, Req: req, Root: *repo})
	if err != nil {
		c.errorf("context: %v", err)
		return exitFailure
	}
	if *asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res.Bundle); err != nil {
			c.errorf("context: %v", err)
			return exitFailure
		}
		return exitOK
	}
	printContext(c.stdout, res, a.Config.Librarian.PromptTokens)
	return exitOK
}

// assembler builds the librarian's assembler from the configuration and
// the environment: policy, redaction, Docdex, index cache and, with
// routing.librarian, the librarian's model.
func (c *cli) assembler(cfgPath string) (*librarian.Assembler, error) {
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return nil, err
	}
	pol, _, err := app.LoadGate(cfg)
	if err != nil {
		return nil, err
	}
	red, err := redact.New(cfg.Redact.Patterns)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", config.ErrInvalid, err)
	}
	dx, set, err := app.NewDocdex(cfg, c.getenv)
	if err != nil {
		return nil, err
	}
	a := &librarian.Assembler{Config: cfg, Policy: pol, PolicyHash: pol.Hash(), Redactor: red, Docdex: dx, DocdexSettings: set,
		Indexes: index.NewCache(app.IndexCacheDir(cfg)), Now: time.Now, Log: slog.New(slog.DiscardHandler)}
	if _, ok := cfg.Routing[events.ServiceLibrarian]; ok {
		var once sync.Once
		var p llm.Provider
		var perr error
		a.Model = func(phase string) (llm.Provider, config.Resolved, error) {
			r, err := cfg.Route(phase, c.getenv)
			if err != nil {
				return nil, r, err
			}
			once.Do(func() {
				script, _ := examples.HelloScript()
				p, perr = llm.New(r.Provider, c.getenv, script)
			})
			return p, r, perr
		}
	}
	return a, nil
}

// printContext writes a readable account of the bundle: where it came
// from, the retrieval calls, then the prompt text the architect and the
// builder would be given from it.
func printContext(w io.Writer, res librarian.Result, budget int) {
	b := res.Bundle
	fmt.Fprintf(w, "request: %s\n", b.Request)
	fmt.Fprintf(w, "queries: %s\n", strings.Join(quoteAll(b.Queries), ", "))
	stale := ""
	if b.Index.Stale {
		stale = " (stale)"
	}
	updated := "unknown"
	if b.Index.LastUpdateMS > 0 {
		updated = time.UnixMilli(b.Index.LastUpdateMS).UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(w, "index: %s, %d files, last updated %s%s\n", b.Index.Source, b.Index.NumFiles, updated, stale)
	if len(res.Tools) > 0 {
		fmt.Fprintln(w, "\nretrieval calls:")
		for _, t := range res.Tools {
			state := "ok"
			switch {
			case t.Gate.Blocked:
				state = "BLOCKED by policy"
			case !t.Result.OK:
				state = "failed: " + t.Result.Error
			}
			fmt.Fprintf(w, "  %2d. %-26s %5d ms  %s\n", t.Step, t.Tool, t.Result.DurationMS, state)
		}
	}
	fmt.Fprintf(w, "\nsnippets: %d, symbol files: %d, outlines: %d, impact: %d, import diagnostics: %d\n",
		len(b.Snippets), len(b.Symbols), len(b.AST), len(b.Impact), len(b.ImpactDiagnostics))
	for _, m := range b.Memory {
		fmt.Fprintf(w, "memory (%s): %s\n", m.Source, m.Text)
	}
	if len(b.GoldenExamples) > 0 {
		fmt.Fprintf(w, "golden examples: %d\n", len(b.GoldenExamples))
	}
	for _, wn := range b.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
	fmt.Fprintln(w, "\nproject memory and goals (kept in NATS) are added when a run's librarian builds the bundle.")
	fmt.Fprintf(w, "\n=== what the architect and builder are shown (budget %d tokens) ===\n", budget)
	fmt.Fprint(w, bundletext.Render(b, budget))
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}
