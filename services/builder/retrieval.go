package builder

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/codali-dev/codali/pkg/docdex"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/index"
	"github.com/codali-dev/codali/pkg/policy"
)

// Retrieval tools (codali-cognitive-architecture §3 Phase 3: keep Docdex
// requests narrow): ranked search, a narrow line window, a file's symbols
// and the folder tree.
const (
	ToolOpen    = "open"
	ToolSymbols = "symbols"
	ToolTree    = "tree"
)

// Bounds of the retrieval tools.
const (
	maxOpenLines    = 80
	maxSearchHits   = 10
	maxTreeDepth    = 4
	maxTreeEntries  = 400
	searchExcerpt   = 3
	defaultTreeDeep = 2
)

// retrieval is what the retrieval tools read: Docdex when configured
// (search and tree), the built-in index of the workspace otherwise. Open
// and symbols always read the workspace, which holds this attempt's
// edits (a daemon's index would show the files as they were).
type retrieval struct {
	docdex  *docdex.Client
	indexes *index.Cache
	limits  index.Limits
	salt    string
}

// newRetrieval returns the builder's retrieval for a run: Docdex scoped
// to the run's repository path when a daemon is configured. policyHash is
// the run's gate's: indexes are kept per policy.
func (s *Service) newRetrieval(run events.Run, policyHash string) *retrieval {
	r := &retrieval{indexes: s.d.Indexes, salt: policyHash,
		limits: index.Limits{MaxFiles: s.d.Config.Librarian.MaxFiles, MaxFileBytes: s.d.Config.Librarian.MaxFileBytes}}
	if s.d.Docdex != nil && run.Request.Repo.Path != "" {
		if root, err := filepath.Abs(run.Request.Repo.Path); err == nil {
			r.docdex = s.d.Docdex.With(docdex.Scope{Root: root, AgentID: run.Request.Options.AgentID})
		}
	}
	return r
}

// prepareRetrieval decodes a retrieval tool call; ok is false for a tool
// that is not one. Reading happens only in run, after the gate.
func (x *executor) prepareRetrieval(tool string, raw json.RawMessage) (pc pending, ok bool, err error) {
	pc = pending{call: policy.ToolCall{Tool: tool}}
	call := &pc.call
	switch tool {
	case ToolOpen:
		var a struct {
			Path      string `json:"path"`
			Line      int    `json:"line"`
			StartLine int    `json:"start_line"`
			EndLine   int    `json:"end_line"`
		}
		p, err := x.decodePath(raw, &a, &a.Path)
		if err != nil {
			return pc, true, err
		}
		call.Paths = x.gatePaths(a.Path)
		pc.run = func(context.Context) (string, error) { return openWindow(p, a.Line, a.StartLine, a.EndLine) }
		return pc, true, nil
	case ToolSymbols:
		var a struct {
			Path string `json:"path"`
		}
		p, err := x.decodePath(raw, &a, &a.Path)
		if err != nil {
			return pc, true, err
		}
		call.Paths = x.gatePaths(a.Path)
		pc.run = func(context.Context) (string, error) { return symbols(p, a.Path) }
		return pc, true, nil
	case ToolTree:
		var a struct {
			Path     string `json:"path"`
			MaxDepth int    `json:"max_depth"`
			DirsOnly bool   `json:"dirs_only"`
		}
		if err := strictDecode(raw, &a); err != nil {
			return pc, true, err
		}
		if a.Path == "" {
			a.Path = "."
			raw, _ = json.Marshal(a)
		}
		p, err := x.decodePath(raw, &a, &a.Path)
		if err != nil {
			return pc, true, err
		}
		if a.MaxDepth <= 0 {
			a.MaxDepth = defaultTreeDeep
		}
		a.MaxDepth = min(a.MaxDepth, maxTreeDepth)
		call.Paths = x.gatePaths(a.Path)
		pc.run = func(ctx context.Context) (string, error) { return x.tree(ctx, p, a.Path, a.MaxDepth, a.DirsOnly) }
		return pc, true, nil
	}
	return pc, false, nil
}

// rankedSearch ranks files for a query: Docdex /search when configured
// (falling back to the built-in index if the daemon fails), the built-in
// BM25 index of the workspace otherwise. Files the policy protects are
// never listed.
func (x *executor) rankedSearch(ctx context.Context, query string) (string, error) {
	r := x.retrieval
	if r == nil {
		r = &retrieval{limits: index.Limits{MaxFiles: 20000, MaxFileBytes: maxReadBytes}}
	}
	var b strings.Builder
	if r.docdex != nil {
		res, err := r.docdex.Search(ctx, query, docdex.SearchOptions{Limit: maxSearchHits, Snippets: true})
		if err == nil {
			b.WriteString("docdex results (the repository as indexed, before this attempt's edits):\n")
			n := 0
			for _, h := range res.Hits {
				if !x.readable(h.File()) {
					continue
				}
				n++
				fmt.Fprintf(&b, "%s:%d-%d (score %.3g) %s\n", h.File(), h.LineStart, h.LineEnd, h.Score, excerpt(h.Snippet))
			}
			if n == 0 {
				return "no matches", nil
			}
			return b.String(), nil
		}
		fmt.Fprintf(&b, "docdex search failed (%v); built-in index:\n", err)
	}
	cache := r.indexes
	if cache == nil {
		cache = index.NewCache("")
	}
	lim := r.limits
	lim.Exclude = func(rel string) bool { return !x.readable(rel) }
	idx, err := cache.Load(ctx, x.ws.Dir, lim, r.salt+"|builder")
	if err != nil {
		return "", fmt.Errorf("%w: %v", errTool, err)
	}
	hits := idx.Search([]string{query}, maxSearchHits, searchExcerpt)
	if len(hits) == 0 {
		return "no matches", nil
	}
	for _, h := range hits {
		fmt.Fprintf(&b, "%s:%d-%d (score %.3g) %s\n", h.Path, h.LineStart, h.LineEnd, h.Score, excerpt(h.Content))
	}
	return b.String(), nil
}

func excerpt(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			lines = append(lines, t)
		}
		if len(lines) == searchExcerpt {
			break
		}
	}
	return strings.Join(lines, " ⏎ ")
}

// openWindow returns a narrow window of a file: lines start..end, or
// maxOpenLines around line, never more than maxOpenLines.
func openWindow(p string, line, start, end int) (string, error) {
	data, err := readAtMost(p, maxScanBytes)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errTool, notExist(err))
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	switch {
	case start > 0:
		if end <= 0 || end > start+maxOpenLines-1 {
			end = start + maxOpenLines - 1
		}
	case line > 0:
		start = max(1, line-maxOpenLines/4)
		end = start + maxOpenLines - 1
	default:
		start, end = 1, maxOpenLines
	}
	end = min(end, total)
	if start > end {
		return "", fmt.Errorf("%w: line %d is past the end (%d lines)", errTool, start, total)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "lines %d-%d of %d\n", start, end, total)
	for i := start; i <= end; i++ {
		fmt.Fprintf(&b, "%d\t%s", i, lines[i-1])
	}
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteString("\n")
	}
	return b.String(), nil
}

// symbols lists a file's declarations from its current content.
func symbols(p, rel string) (string, error) {
	data, err := readAtMost(p, maxReadBytes)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errTool, notExist(err))
	}
	f := index.Extract(rel, data)
	if f.Lang == "" {
		return "", fmt.Errorf("%w: no symbol extractor for %s (Go, Python, JavaScript/TypeScript, Rust, Java)", errTool, rel)
	}
	if len(f.Symbols) == 0 {
		return "no symbols", nil
	}
	var b strings.Builder
	for _, s := range f.Symbols {
		sig := s.Signature
		if sig == "" {
			sig = s.Kind + " " + s.Name
		}
		fmt.Fprintf(&b, "%d-%d %s %s: %s", s.Line, s.EndLine, s.Kind, s.Name, sig)
		if s.Doc != "" {
			b.WriteString(" // " + s.Doc)
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}

// tree lists the folder structure: MCP docdex_tree when configured (and
// working), the workspace otherwise.
func (x *executor) tree(ctx context.Context, p, rel string, depth int, dirsOnly bool) (string, error) {
	if r := x.retrieval; r != nil && r.docdex != nil {
		t, err := r.docdex.Tree(ctx, rel, depth, dirsOnly)
		if err == nil {
			var keep []string
			for _, l := range strings.Split(t.Text(), "\n") {
				if name := strings.TrimSpace(strings.TrimLeft(l, "│├└─ ")); name == "" || x.readable(strings.TrimSuffix(name, "/")) || strings.HasSuffix(name, "/") {
					keep = append(keep, l)
				}
			}
			return strings.Join(keep, "\n"), nil
		}
	}
	var out []string
	err := filepath.WalkDir(p, func(q string, d os.DirEntry, err error) error {
		if err != nil || q == p {
			return nil
		}
		r, _ := filepath.Rel(x.ws.Dir, q)
		r = filepath.ToSlash(r)
		relToRoot, _ := filepath.Rel(p, q)
		level := strings.Count(filepath.ToSlash(relToRoot), "/")
		if level >= depth || d.IsDir() && (d.Name() == ".git" || d.Name() == ".context") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			out = append(out, strings.Repeat("  ", level)+d.Name()+"/")
			return nil
		}
		if dirsOnly || !x.readable(r) {
			return nil
		}
		out = append(out, strings.Repeat("  ", level)+d.Name())
		if len(out) >= maxTreeEntries {
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("%w: %v", errTool, err)
	}
	if len(out) >= maxTreeEntries {
		out = append(out, fmt.Sprintf("… listing stopped at %d entries", maxTreeEntries))
	}
	return strings.Join(out, "\n"), nil
}

// retrievalToolNames are the retrieval tools, sorted.
func retrievalToolNames() []string {
	n := []string{ToolOpen, ToolSymbols, ToolTree}
	sort.Strings(n)
	return n
}
