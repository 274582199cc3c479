package librarian

import (
	"context"
	"fmt"
	"strconv"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/index"
	"github.com/codali-dev/codali/pkg/policy"
)

// Graph bounds of the built-in index when no docdex section sets them.
const (
	builtinImpactDepth = 3
	builtinImpactEdges = 200
	builtinASTNodes    = 200
)

func readCall(p string) policy.ToolCall {
	return policy.ToolCall{Tool: policy.ToolReadFile, Paths: []string{p}}
}

// BuiltinIndex loads the built-in index of root through the cache (files
// the policy protects are left out; the policy's hash is part of the
// cache key).
func (a *Assembler) BuiltinIndex(ctx context.Context, root string) (*index.Index, error) {
	cfg := a.Config.Librarian
	lim := index.Limits{MaxFiles: cfg.MaxFiles, MaxFileBytes: cfg.MaxFileBytes,
		// Files the policy protects never reach a bundle.
		Exclude: func(rel string) bool { return a.Policy.Evaluate(readCall(rel)).Blocked }}
	cache := a.Indexes
	if cache == nil {
		cache = index.NewCache("")
	}
	return cache.Load(ctx, root, lim, a.PolicyHash)
}

// builtin fills the bundle from the built-in index: BM25 snippets,
// symbols, outlines and the import graph of the likely-to-change files.
func (a *Assembler) builtin(ctx context.Context, root string, b *events.ContextBundle) error {
	cfg := a.Config.Librarian
	idx, err := a.BuiltinIndex(ctx, root)
	if err != nil {
		return err
	}
	b.Index = events.IndexStats{Source: "builtin", NumFiles: len(idx.Files), NumDocs: len(idx.Files), NumBytes: idx.Bytes,
		Truncated: idx.Truncated, LastUpdateMS: idx.BuiltAt.UnixMilli()}
	b.Files = b.Files[:0]
	for _, f := range idx.Files {
		b.Files = append(b.Files, events.FileInfo{Path: f.Path, Bytes: f.Size})
	}
	b.Snippets = b.Snippets[:0]
	var ranked []string
	for _, h := range idx.Search(b.Queries, cfg.MaxSnippets, cfg.SnippetLines) {
		ranked = append(ranked, h.Path)
		b.Snippets = append(b.Snippets, events.Snippet{DocID: h.Path, Path: h.Path, LineStart: h.LineStart, LineEnd: h.LineEnd,
			Content: a.Redactor.String(h.Content)})
	}
	depth, edges, nodes := builtinImpactDepth, builtinImpactEdges, builtinASTNodes
	if s := a.DocdexSettings; s != nil {
		depth, edges, nodes = s.ImpactMaxDepth, s.ImpactMaxEdges, s.ASTMaxNodes
	}
	b.Symbols, b.AST, b.Impact, b.ImpactDiagnostics = nil, nil, nil, nil
	for _, p := range likely(ranked) {
		f, _ := idx.File(p)
		fs := events.FileSymbols{Path: p}
		for i, s := range f.Symbols {
			if i == maxSymbolsPerFile {
				break
			}
			fs.Symbols = append(fs.Symbols, events.SymbolInfo{Name: s.Name, Kind: s.Kind, Signature: s.Signature, Doc: s.Doc, Parent: s.Parent, Line: s.Line, EndLine: s.EndLine})
		}
		fs.Summary = symbolSummary(fs.Symbols)
		b.Symbols = append(b.Symbols, fs)
		fa := events.FileAST{Path: p, Language: f.Lang, Total: len(f.Outline), Nodes: []events.ASTNode{}}
		for i, n := range f.Outline {
			if i == nodes {
				fa.Truncated = true
				break
			}
			parent := ""
			if n.Parent > 0 {
				parent = strconv.Itoa(n.Parent)
			}
			fa.Nodes = append(fa.Nodes, events.ASTNode{ID: strconv.Itoa(n.ID), ParentID: parent, Kind: n.Kind, Name: n.Name, Line: n.Line, EndLine: n.EndLine})
		}
		b.AST = append(b.AST, fa)
		if im, ok := idx.Impact(p, depth, edges); ok {
			b.Impact = append(b.Impact, events.FileImpact{File: p, Inbound: im.Inbound, Outbound: im.Outbound, Truncated: im.Truncated})
		}
	}
	for _, p := range sparse(b.Impact) {
		im, _ := idx.Impact(p, 1, 1)
		if len(im.Unresolved) > 0 {
			b.ImpactDiagnostics = append(b.ImpactDiagnostics, events.FileImpactDiagnostics{File: p,
				Diagnostics: events.ImportDiagnostics{UnresolvedImportsTotal: len(im.Unresolved), UnresolvedImportsSample: first(im.Unresolved, 5)}})
		}
	}
	if idx.Truncated {
		b.Warnings = append(b.Warnings, fmt.Sprintf("file list truncated at %d files", cfg.MaxFiles))
	}
	if idx.Skipped > 0 {
		b.Warnings = append(b.Warnings, fmt.Sprintf("%d binary or oversize files not read", idx.Skipped))
	}
	if len(b.Snippets) == 0 {
		b.Warnings = append(b.Warnings, "no file matched the request's terms")
	}
	return nil
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
