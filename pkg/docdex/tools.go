package docdex

import "context"

// MCP tool names.
const (
	ToolSymbols           = "docdex_symbols"
	ToolAST               = "docdex_ast"
	ToolFiles             = "docdex_files"
	ToolStats             = "docdex_stats"
	ToolMemoryRecall      = "docdex_memory_recall"
	ToolMemorySave        = "docdex_memory_save"
	ToolGetProfile        = "docdex_get_profile"
	ToolSavePreference    = "docdex_save_preference"
	ToolTree              = "docdex_tree"
	ToolOpen              = "docdex_open"
	ToolSearch            = "docdex_search"
	ToolWebResearch       = "docdex_web_research"
	ToolIndex             = "docdex_index"
	ToolImpactDiagnostics = "docdex_impact_diagnostics"
)

// Symbols runs docdex_symbols for a repository-relative path.
func (c *Client) Symbols(ctx context.Context, path string) (Symbols, error) {
	var out Symbols
	err := c.CallTool(ctx, ToolSymbols, map[string]any{"path": path}, &out)
	return out, err
}

// AST runs docdex_ast for a path, bounded to maxNodes nodes.
func (c *Client) AST(ctx context.Context, path string, maxNodes int) (AST, error) {
	var out AST
	err := c.CallTool(ctx, ToolAST, map[string]any{"path": path, "max_nodes": maxNodes}, &out)
	return out, err
}

// Files runs docdex_files.
func (c *Client) Files(ctx context.Context, o PageOptions) (Files, error) {
	var out Files
	err := c.CallTool(ctx, ToolFiles, map[string]any{"limit": o.Limit, "offset": o.Offset}, &out)
	return out, err
}

// Stats runs docdex_stats.
func (c *Client) Stats(ctx context.Context) (Stats, error) {
	var out Stats
	err := c.CallTool(ctx, ToolStats, nil, &out)
	return out, err
}

// MemoryRecall runs docdex_memory_recall.
func (c *Client) MemoryRecall(ctx context.Context, query string, topK int) (Recall, error) {
	var out Recall
	err := c.CallTool(ctx, ToolMemoryRecall, map[string]any{"query": query, "top_k": topK}, &out)
	return out, err
}

// MemorySave runs docdex_memory_save.
func (c *Client) MemorySave(ctx context.Context, text string, metadata map[string]any) (Saved, error) {
	var out Saved
	if metadata == nil {
		metadata = map[string]any{}
	}
	err := c.CallTool(ctx, ToolMemorySave, map[string]any{"text": text, "metadata": metadata}, &out)
	return out, err
}

// GetProfile runs docdex_get_profile for an agent.
func (c *Client) GetProfile(ctx context.Context, agentID string) (Profile, error) {
	var out Profile
	err := c.CallTool(ctx, ToolGetProfile, map[string]any{"agent_id": agentID}, &out)
	return out, err
}

// SavePreference runs docdex_save_preference. category is one of the
// Category constants.
func (c *Client) SavePreference(ctx context.Context, agentID, content, category string) (Queued, error) {
	var out Queued
	err := c.CallTool(ctx, ToolSavePreference, map[string]any{"agent_id": agentID, "content": content, "category": category}, &out)
	return out, err
}

// Tree runs docdex_tree.
func (c *Client) Tree(ctx context.Context, path string, maxDepth int, dirsOnly bool) (Tree, error) {
	var out Tree
	err := c.CallTool(ctx, ToolTree, map[string]any{"path": path, "max_depth": maxDepth, "dirs_only": dirsOnly}, &out)
	return out, err
}

// Open runs docdex_open for a line range of a path.
func (c *Client) Open(ctx context.Context, path string, startLine, endLine int) (Opened, error) {
	var out Opened
	err := c.CallTool(ctx, ToolOpen, map[string]any{"path": path, "start_line": startLine, "end_line": endLine}, &out)
	return out, err
}

// SearchTool runs the docdex_search tool (the MCP twin of Search).
func (c *Client) SearchTool(ctx context.Context, query string, limit int) (SearchResult, error) {
	var out SearchResult
	err := c.CallTool(ctx, ToolSearch, map[string]any{"query": query, "limit": limit}, &out)
	return out, err
}

// WebResearch runs docdex_web_research (the daemon needs
// DOCDEX_WEB_ENABLED=1). The payload is returned as decoded JSON.
func (c *Client) WebResearch(ctx context.Context, query string, limit int) (map[string]any, error) {
	var out map[string]any
	err := c.CallTool(ctx, ToolWebResearch, map[string]any{"query": query, "limit": limit}, &out)
	return out, err
}

// Index runs docdex_index for paths (empty: the whole repository).
func (c *Client) Index(ctx context.Context, paths []string) (IndexResult, error) {
	var out IndexResult
	if paths == nil {
		paths = []string{}
	}
	err := c.CallTool(ctx, ToolIndex, map[string]any{"paths": paths}, &out)
	return out, err
}

// ImpactDiagnosticsTool runs docdex_impact_diagnostics.
func (c *Client) ImpactDiagnosticsTool(ctx context.Context, file string, o PageOptions) (ImpactDiagnostics, error) {
	var out ImpactDiagnostics
	args := map[string]any{"limit": o.Limit, "offset": o.Offset}
	if file != "" {
		args["file"] = file
	}
	err := c.CallTool(ctx, ToolImpactDiagnostics, args, &out)
	return out, err
}
