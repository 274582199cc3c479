package docdex

import (
	"context"
	"net/url"
	"strconv"
	"strings"
)

// Health checks GET /healthz. It returns nil when the daemon answers 200,
// an error wrapping ErrUnavailable when it cannot be reached, or another
// sentinel for a failure status.
func (c *Client) Health(ctx context.Context) error {
	_, err := c.roundTrip(ctx, request{method: "GET", path: "/healthz", noRepo: true})
	return err
}

// Initialize binds root (an absolute path) to a repository id with
// POST /v1/initialize.
func (c *Client) Initialize(ctx context.Context, root string) (InitializeResult, error) {
	var out InitializeResult
	r := request{method: "POST", path: "/v1/initialize", body: map[string]string{"rootUri": fileURI(root)}, noRepo: true}
	resp, err := c.roundTrip(ctx, r)
	if err != nil {
		return out, err
	}
	if err := decode(r.op(), resp, &out); err != nil {
		return out, err
	}
	return out, nil
}

// fileURI turns an absolute path into a file:// URI.
func fileURI(root string) string {
	return (&url.URL{Scheme: "file", Path: root}).String()
}

// Search runs GET /search.
func (c *Client) Search(ctx context.Context, q string, o SearchOptions) (SearchResult, error) {
	v := url.Values{"q": {q}}
	if o.Limit > 0 {
		v.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Snippets {
		v.Set("snippets", "true")
	}
	if o.MaxTokens > 0 {
		v.Set("max_tokens", strconv.Itoa(o.MaxTokens))
	}
	if c.o.RepoID != "" {
		v.Set("repo_id", c.o.RepoID)
	}
	var out SearchResult
	err := c.doJSON(ctx, request{method: "GET", path: "/search", query: v}, &out)
	return out, err
}

// Snippet runs GET /snippet/<doc_id> (the id may contain "/"). A document
// that is not found gives a result with both fields nil and no error.
func (c *Client) Snippet(ctx context.Context, docID string, o SnippetOptions) (SnippetResult, error) {
	v := url.Values{}
	if o.Window > 0 {
		v.Set("window", strconv.Itoa(o.Window))
	}
	if o.Query != "" {
		v.Set("q", o.Query)
	}
	if o.TextOnly {
		v.Set("text_only", "true")
	}
	segs := strings.Split(docID, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	var out SnippetResult
	err := c.doJSON(ctx, request{method: "GET", path: "/snippet/" + strings.Join(segs, "/"), query: v}, &out)
	return out, err
}

// Impact runs GET /v1/graph/impact for one file.
func (c *Client) Impact(ctx context.Context, file string, o ImpactOptions) (ImpactGraph, error) {
	v := url.Values{"file": {file}}
	if o.MaxEdges > 0 {
		v.Set("maxEdges", strconv.Itoa(o.MaxEdges))
	}
	if o.MaxDepth > 0 {
		v.Set("maxDepth", strconv.Itoa(o.MaxDepth))
	}
	if len(o.EdgeTypes) > 0 {
		v.Set("edgeTypes", strings.Join(o.EdgeTypes, ","))
	}
	var out ImpactGraph
	err := c.doJSON(ctx, request{method: "GET", path: "/v1/graph/impact", query: v}, &out)
	return out, err
}

// ImpactDiagnostics runs GET /v1/graph/impact/diagnostics; file may be
// empty for every file.
func (c *Client) ImpactDiagnostics(ctx context.Context, file string, o PageOptions) (ImpactDiagnostics, error) {
	v := url.Values{}
	if file != "" {
		v.Set("file", file)
	}
	page(v, o)
	var out ImpactDiagnostics
	err := c.doJSON(ctx, request{method: "GET", path: "/v1/graph/impact/diagnostics", query: v}, &out)
	return out, err
}

func page(v url.Values, o PageOptions) {
	if o.Limit > 0 {
		v.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Offset > 0 {
		v.Set("offset", strconv.Itoa(o.Offset))
	}
}

// DagExport runs GET /v1/dag/export?format=json.
func (c *Client) DagExport(ctx context.Context, sessionID string, maxNodes int) (DagExport, error) {
	var out DagExport
	v := url.Values{"session_id": {sessionID}, "format": {"json"}}
	if maxNodes > 0 {
		v.Set("max_nodes", strconv.Itoa(maxNodes))
	}
	err := c.doJSON(ctx, request{method: "GET", path: "/v1/dag/export", query: v}, &out)
	return out, err
}

// DagExportText runs GET /v1/dag/export with format "text" or "dot" and
// returns the rendered graph.
func (c *Client) DagExportText(ctx context.Context, sessionID, format string, maxNodes int) (string, error) {
	v := url.Values{"session_id": {sessionID}, "format": {format}}
	if maxNodes > 0 {
		v.Set("max_nodes", strconv.Itoa(maxNodes))
	}
	resp, err := c.call(ctx, request{method: "GET", path: "/v1/dag/export", query: v}, c.roundTrip)
	return string(resp.body), err
}

// Rebuild asks for an index rebuild with POST /v1/index/rebuild.
func (c *Client) Rebuild(ctx context.Context) error {
	body := map[string]string{}
	if c.o.RepoID != "" {
		body["repo_id"] = c.o.RepoID
	}
	_, err := c.roundTrip(ctx, request{method: "POST", path: "/v1/index/rebuild", body: body})
	return err
}

// IndexStatus runs GET /v1/index/status.
func (c *Client) IndexStatus(ctx context.Context) (IndexStatus, error) {
	var out IndexStatus
	err := c.doJSON(ctx, request{method: "GET", path: "/v1/index/status"}, &out)
	return out, err
}

// ValidateHooks runs POST /v1/hooks/validate for the given files.
func (c *Client) ValidateHooks(ctx context.Context, files []string) (HookResult, error) {
	var out HookResult
	if files == nil {
		files = []string{}
	}
	err := c.doJSON(ctx, request{method: "POST", path: "/v1/hooks/validate", body: map[string][]string{"files": files}}, &out)
	return out, err
}

// Delegate runs POST /v1/delegate.
func (c *Client) Delegate(ctx context.Context, d DelegateRequest) (DelegateResult, error) {
	var out DelegateResult
	err := c.doJSON(ctx, request{method: "POST", path: "/v1/delegate", body: d}, &out)
	return out, err
}

func decode(op string, resp response, out any) error {
	if err := jsonUnmarshal(resp.body, out); err != nil {
		return &Error{Op: op, Status: resp.status, Message: "unexpected answer: " + err.Error(), sentinel: ErrServer}
	}
	return nil
}
