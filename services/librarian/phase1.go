package librarian

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/codali-dev/codali/pkg/docdex"
	"github.com/codali-dev/codali/pkg/events"
)

// Names of the Phase 1 actions as recorded in the run's history
// (codali-cognitive-architecture §3 Phase 1 and §5).
const (
	ActHealth            = "docdex_health"
	ActInitialize        = "docdex_initialize"
	ActStats             = "docdex_stats"
	ActFiles             = "docdex_files"
	ActSearch            = "docdex_search"
	ActOpen              = "docdex_open"
	ActSymbols           = "docdex_symbols"
	ActAST               = "docdex_ast"
	ActImpactGraph       = "docdex_impact_graph"
	ActMemoryRecall      = "docdex_memory_recall"
	ActGetProfile        = "docdex_get_profile"
	ActImpactDiagnostics = "docdex_impact_diagnostics"
	// ActIndex is the optional rebuild of a stale index.
	ActIndex = "docdex_index"
	// ActSavePreference stores the request's explicit preferences.
	ActSavePreference = "docdex_save_preference"
)

// notices collects what the client did on its own (rebuilds, waits).
type notices struct {
	mu   sync.Mutex
	list []docdex.Notice
}

func (n *notices) add(x docdex.Notice) {
	n.mu.Lock()
	n.list = append(n.list, x)
	n.mu.Unlock()
}

func (n *notices) take() []docdex.Notice {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := n.list
	n.list = nil
	return out
}

// phase1 runs the ten mandatory Docdex actions in order. It returns false
// (with a warning in the bundle) when the daemon is unreachable and not
// required, so the caller uses the built-in index; an error wrapping
// ErrDocdexRequired when it is required; true when the bundle was built
// from Docdex (individual failed actions become warnings).
func (a *Assembler) phase1(ctx context.Context, r Request, root string, b *events.ContextBundle, rec *recorder) (bool, error) {
	set := a.DocdexSettings
	seen := &notices{}
	c := a.Docdex.With(docdex.Scope{Root: root, AgentID: a.agentID(r), Observe: seen.add})
	warn := func(format string, args ...any) { b.Warnings = append(b.Warnings, fmt.Sprintf(format, args...)) }
	fail := func(what string, err error) {
		warn("docdex %s failed: %v", what, err)
	}

	// 1. health.
	if _, err := rec.do(ctx, ActHealth, map[string]any{}, nil, func(ctx context.Context) (string, error) {
		return "ok", c.Health(ctx)
	}); err != nil {
		if set.Required {
			return false, fmt.Errorf("%w: daemon at %s: %w", ErrDocdexRequired, c.URL(), err)
		}
		warn("docdex at %s is unreachable (%v): using the built-in index", c.URL(), err)
		return false, nil
	}
	// 2. initialize: binds the repository; its id selects it from now on.
	if _, err := rec.do(ctx, ActInitialize, map[string]any{"rootUri": "file://" + root}, nil, func(ctx context.Context) (string, error) {
		res, err := c.Initialize(ctx, root)
		if err == nil && set.RepoID == "" && res.RepoID != "" {
			c = c.With(docdex.Scope{RepoID: res.RepoID})
		}
		return fmt.Sprintf("repo_id=%s status=%s", res.RepoID, res.Status), err
	}); err != nil {
		if set.Required {
			return false, fmt.Errorf("%w: initialize %s: %w", ErrDocdexRequired, root, err)
		}
		warn("docdex could not initialize the repository (%v): using the built-in index", err)
		return false, nil
	}
	// 3. stats + files: coverage and staleness.
	var stats docdex.Stats
	if _, err := rec.do(ctx, ActStats, map[string]any{}, nil, func(ctx context.Context) (string, error) {
		var err error
		stats, err = c.Stats(ctx)
		return fmt.Sprintf("num_docs=%d last_updated_epoch_ms=%d", stats.NumDocs, stats.LastUpdatedEpochMS), err
	}); err != nil {
		fail("stats", err)
	}
	b.Index = events.IndexStats{Source: "docdex", NumDocs: stats.NumDocs, NumBytes: stats.IndexSizeBytes, LastUpdateMS: stats.LastUpdatedEpochMS}
	if _, err := rec.do(ctx, ActFiles, map[string]any{"limit": a.Config.Librarian.MaxFiles, "offset": 0}, nil, func(ctx context.Context) (string, error) {
		fl, err := c.Files(ctx, docdex.PageOptions{Limit: a.Config.Librarian.MaxFiles})
		for _, f := range fl.Results {
			if p := f.Name(); p != "" && !a.Policy.Evaluate(readCall(p)).Blocked {
				b.Files = append(b.Files, events.FileInfo{Path: p})
			}
		}
		b.Index.NumFiles = fl.Total
		b.Index.Truncated = fl.Total > len(fl.Results)
		return fmt.Sprintf("%d of %d files", len(fl.Results), fl.Total), err
	}); err != nil {
		fail("files", err)
	}
	now := a.Now()
	age := now.Sub(time.UnixMilli(stats.LastUpdatedEpochMS))
	if stats.LastUpdatedEpochMS > 0 && age > set.StaleAfter() {
		b.Index.Stale = true
		// Optional action: ask for a rebuild; this run uses what is there.
		_, err := rec.do(ctx, ActIndex, map[string]any{"paths": []string{}}, nil, func(ctx context.Context) (string, error) {
			res, err := c.Index(ctx, nil)
			return res.Status + " " + res.Action, err
		})
		if err != nil {
			warn("docdex index is stale (last updated %s ago) and the rebuild request failed: %v", age.Round(time.Minute), err)
		} else {
			warn("docdex index is stale (last updated %s ago): rebuild requested; this bundle may miss recent changes", age.Round(time.Minute))
		}
	}
	a.noticeWarnings(seen, b)

	// 4. 1-3 focused searches.
	scores := map[string]float64{}
	hits := map[string]docdex.Hit{}
	for _, q := range b.Queries {
		_, err := rec.do(ctx, ActSearch, map[string]any{"q": q, "limit": a.Config.Librarian.MaxSnippets}, nil, func(ctx context.Context) (string, error) {
			res, err := c.Search(ctx, q, docdex.SearchOptions{Limit: a.Config.Librarian.MaxSnippets})
			for _, h := range res.Hits {
				id := h.DocID
				if id == "" {
					id = h.File()
				}
				if h.Score > scores[id] || scores[id] == 0 {
					scores[id], hits[id] = max(h.Score, scores[id]), h
				}
			}
			return fmt.Sprintf("%d hits, top score %.3g", len(res.Hits), res.TopScore), err
		})
		if err != nil {
			fail("search", err)
		}
	}
	a.noticeWarnings(seen, b)
	ranked := sortedKeys(scores)
	// 5. open the top hits in small windows.
	window := min(a.Config.Librarian.SnippetLines, openWindow)
	var rankedPaths []string
	for _, id := range ranked {
		if len(b.Snippets) == a.Config.Librarian.MaxSnippets {
			break
		}
		h := hits[id]
		path := h.File()
		rankedPaths = append(rankedPaths, path)
		ok, err := rec.do(ctx, ActOpen, map[string]any{"doc_id": id, "window": window}, []string{path}, func(ctx context.Context) (string, error) {
			q := ""
			if len(b.Queries) > 0 {
				q = b.Queries[0]
			}
			sn, err := c.Snippet(ctx, id, docdex.SnippetOptions{Window: window, Query: q, TextOnly: true})
			if err != nil || sn.Snippet == nil {
				return "not found", err
			}
			b.Snippets = append(b.Snippets, events.Snippet{DocID: id, Path: path, LineStart: sn.Snippet.LineStart, LineEnd: sn.Snippet.LineEnd,
				Content: a.Redactor.String(sn.Snippet.Text)})
			return fmt.Sprintf("lines %d-%d", sn.Snippet.LineStart, sn.Snippet.LineEnd), nil
		})
		if err != nil {
			fail("open "+path, err)
		} else if !ok {
			warn("policy kept %s out of the bundle", path)
		}
	}
	if len(b.Snippets) == 0 {
		warn("docdex found nothing for the queries %q", b.Queries)
	}
	// 6. symbols + AST of the likely-to-change files.
	files := likely(rankedPaths)
	for _, f := range files {
		if _, err := rec.do(ctx, ActSymbols, map[string]any{"path": f}, []string{f}, func(ctx context.Context) (string, error) {
			sy, err := c.Symbols(ctx, f)
			fs := events.FileSymbols{Path: f}
			for i, s := range sy.Symbols {
				if i == maxSymbolsPerFile {
					break
				}
				fs.Symbols = append(fs.Symbols, events.SymbolInfo{Name: s.Name, Kind: s.Kind, Signature: s.Signature, Line: s.Range.StartLine, EndLine: s.Range.EndLine})
			}
			fs.Summary = symbolSummary(fs.Symbols)
			if err == nil {
				b.Symbols = append(b.Symbols, fs)
			}
			return fmt.Sprintf("%d symbols", len(sy.Symbols)), err
		}); err != nil {
			fail("symbols "+f, err)
		}
	}
	for _, f := range files {
		if _, err := rec.do(ctx, ActAST, map[string]any{"path": f, "max_nodes": set.ASTMaxNodes}, []string{f}, func(ctx context.Context) (string, error) {
			t, err := c.AST(ctx, f, set.ASTMaxNodes)
			fa := events.FileAST{Path: f, Language: t.Language, Total: t.TotalNodes, Truncated: t.Truncated, Nodes: []events.ASTNode{}}
			for _, n := range t.Nodes {
				fa.Nodes = append(fa.Nodes, events.ASTNode{ID: idString(n.ID), ParentID: idString(n.ParentID), Kind: n.Kind, Name: n.Name,
					Line: n.Range.StartLine, EndLine: n.Range.EndLine})
			}
			if err == nil {
				b.AST = append(b.AST, fa)
			}
			return fmt.Sprintf("%d of %d nodes", len(t.Nodes), t.TotalNodes), err
		}); err != nil {
			fail("ast "+f, err)
		}
	}
	// 7. impact graph, bounded.
	for _, f := range files {
		if _, err := rec.do(ctx, ActImpactGraph, map[string]any{"file": f, "maxDepth": set.ImpactMaxDepth, "maxEdges": set.ImpactMaxEdges}, []string{f}, func(ctx context.Context) (string, error) {
			g, err := c.Impact(ctx, f, docdex.ImpactOptions{MaxDepth: set.ImpactMaxDepth, MaxEdges: set.ImpactMaxEdges})
			if err == nil {
				b.Impact = append(b.Impact, events.FileImpact{File: f, Inbound: nonNil(g.Inbound), Outbound: nonNil(g.Outbound), Truncated: g.Truncated})
			}
			return fmt.Sprintf("%d inbound, %d outbound, %d edges", len(g.Inbound), len(g.Outbound), len(g.Edges)), err
		}); err != nil {
			fail("impact graph "+f, err)
		}
	}
	// 8. repository memory.
	if _, err := rec.do(ctx, ActMemoryRecall, map[string]any{"query": r.Req.Request, "top_k": recallTopK}, nil, func(ctx context.Context) (string, error) {
		m, err := c.MemoryRecall(ctx, r.Req.Request, recallTopK)
		for _, x := range m.Results {
			b.Memory = append(b.Memory, events.MemoryItem{Text: a.Redactor.String(x.Content), Source: events.MemorySourceRepo})
		}
		return fmt.Sprintf("%d lessons", len(m.Results)), err
	}); err != nil {
		if errors.Is(err, docdex.ErrMemoryDisabled) {
			warn("docdex memory is disabled: no repository lessons")
		} else {
			fail("memory recall", err)
		}
	}
	// 9. the agent's profile.
	agent := a.agentID(r)
	if _, err := rec.do(ctx, ActGetProfile, map[string]any{"agent_id": agent}, nil, func(ctx context.Context) (string, error) {
		p, err := c.GetProfile(ctx, agent)
		for _, x := range p.Preferences {
			b.Profile = append(b.Profile, events.ProfileItem{Content: a.Redactor.String(x.Content), Category: x.Category, Source: "agent"})
		}
		return fmt.Sprintf("%d preferences", len(p.Preferences)), err
	}); err != nil {
		fail("get profile", err)
	}
	// 10. impact diagnostics when the graph looks sparse.
	for _, f := range sparse(b.Impact) {
		if _, err := rec.do(ctx, ActImpactDiagnostics, map[string]any{"file": f, "limit": diagnosticsLimit}, []string{f}, func(ctx context.Context) (string, error) {
			d, err := c.ImpactDiagnostics(ctx, f, docdex.PageOptions{Limit: diagnosticsLimit})
			for _, x := range d.Diagnostics {
				b.ImpactDiagnostics = append(b.ImpactDiagnostics, events.FileImpactDiagnostics{File: x.File, Diagnostics: events.ImportDiagnostics{
					UnresolvedImportsTotal: x.Diagnostics.UnresolvedImportsTotal, UnresolvedImportsSample: x.Diagnostics.UnresolvedImportsSample}})
			}
			return fmt.Sprintf("%d files with diagnostics", len(d.Diagnostics)), err
		}); err != nil {
			fail("impact diagnostics "+f, err)
		}
	}
	a.noticeWarnings(seen, b)
	return true, nil
}

// noticeWarnings turns the client's own recoveries into bundle warnings.
func (a *Assembler) noticeWarnings(seen *notices, b *events.ContextBundle) {
	for _, n := range seen.take() {
		switch n.Action {
		case "rebuild":
			b.Warnings = append(b.Warnings, fmt.Sprintf("docdex reported %v during %s: rebuild requested", n.Cause, n.Op))
		case "initialize":
			b.Warnings = append(b.Warnings, fmt.Sprintf("docdex did not know the repository during %s: initialized it", n.Op))
		case "wait":
			b.Warnings = append(b.Warnings, fmt.Sprintf("docdex asked to wait %s during %s (%v)", n.Wait.Round(time.Millisecond), n.Op, n.Cause))
		}
	}
}

// savePreferences stores the request's explicit preferences through
// docdex_save_preference and returns those it could not store.
func (a *Assembler) savePreferences(ctx context.Context, r Request, root string, b *events.ContextBundle, rec *recorder) []events.Preference {
	var left []events.Preference
	c := a.Docdex.With(docdex.Scope{Root: root, AgentID: a.agentID(r)})
	for _, p := range b.PreferencesDetected {
		if _, err := rec.do(ctx, ActSavePreference, map[string]any{"agent_id": a.agentID(r), "category": p.Category, "content": p.Content}, nil, func(ctx context.Context) (string, error) {
			q, err := c.SavePreference(ctx, a.agentID(r), p.Content, p.Category)
			return q.Status, err
		}); err != nil {
			b.Warnings = append(b.Warnings, fmt.Sprintf("docdex could not save the preference %q (%v): kept in project memory", p.Content, err))
			left = append(left, p)
		}
	}
	return left
}

func idString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return fmt.Sprintf("%d", int64(x))
	case string:
		return x
	}
	return fmt.Sprint(v)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
