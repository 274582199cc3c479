package docdex

import (
	"encoding/json"
)

// InitializeResult is the answer of POST /v1/initialize.
type InitializeResult struct {
	RepoID   string `json:"repo_id"`
	Status   string `json:"status"` // "ready" or "indexing"
	RepoRoot string `json:"repo_root"`
}

// SearchOptions are the parameters of GET /search.
type SearchOptions struct {
	// Limit bounds the hits (daemon default 8).
	Limit int
	// Snippets asks for snippets in the hits.
	Snippets bool
	// MaxTokens bounds the hits' total token estimate.
	MaxTokens int
}

// Hit is one search result.
type Hit struct {
	DocID         string  `json:"doc_id"`
	RelPath       string  `json:"rel_path"`
	Path          string  `json:"path"`
	Kind          string  `json:"kind"` // "doc" or "code"
	Score         float64 `json:"score"`
	Summary       string  `json:"summary"`
	Snippet       string  `json:"snippet"`
	TokenEstimate int     `json:"token_estimate"`
	LineStart     int     `json:"line_start,omitempty"`
	LineEnd       int     `json:"line_end,omitempty"`
}

// File is the hit's repository-relative path (rel_path, else path).
func (h Hit) File() string {
	if h.RelPath != "" {
		return h.RelPath
	}
	return h.Path
}

// SearchResult is the answer of GET /search and of docdex_search.
type SearchResult struct {
	Hits     []Hit           `json:"hits"`
	TopScore float64         `json:"top_score"`
	Meta     json.RawMessage `json:"meta,omitempty"`
}

// SnippetOptions are the parameters of GET /snippet/<doc_id>.
type SnippetOptions struct {
	// Window is the number of lines (daemon default 40).
	Window int
	// Query centres the window on a match.
	Query string
	// TextOnly asks for plain text without highlighting.
	TextOnly bool
}

// SnippetDoc describes the document of a snippet.
type SnippetDoc struct {
	DocID         string `json:"doc_id"`
	RelPath       string `json:"rel_path"`
	Kind          string `json:"kind"`
	Summary       string `json:"summary"`
	TokenEstimate int    `json:"token_estimate"`
}

// SnippetText is a snippet's text.
type SnippetText struct {
	Text      string `json:"text"`
	Truncated bool   `json:"truncated"`
	Origin    string `json:"origin"`
	LineStart int    `json:"line_start,omitempty"`
	LineEnd   int    `json:"line_end,omitempty"`
}

// SnippetResult is the answer of GET /snippet/<doc_id>; both fields are
// nil when the document is not found.
type SnippetResult struct {
	Doc     *SnippetDoc  `json:"doc"`
	Snippet *SnippetText `json:"snippet"`
}

// ImpactOptions are the parameters of GET /v1/graph/impact.
type ImpactOptions struct {
	MaxEdges  int
	MaxDepth  int
	EdgeTypes []string
}

// Edge is one dependency edge.
type Edge struct {
	Source string `json:"source"`
	Target string `json:"target"`
	Kind   string `json:"kind,omitempty"`
}

// Limits are the limits a graph query applied.
type Limits struct {
	MaxEdges int `json:"maxEdges"`
	MaxDepth int `json:"maxDepth"`
}

// Schema names a payload's schema.
type Schema struct {
	Name    string `json:"name"`
	Version any    `json:"version"`
}

// ImpactGraph is the answer of GET /v1/graph/impact. It accepts both
// spellings repoId / repo_id and appliedLimits / applied.
type ImpactGraph struct {
	Schema        Schema          `json:"schema"`
	RepoID        string          `json:"repoId"`
	Source        string          `json:"source"`
	Inbound       []string        `json:"inbound"`
	Outbound      []string        `json:"outbound"`
	Edges         []Edge          `json:"edges"`
	Truncated     bool            `json:"truncated"`
	AppliedLimits Limits          `json:"appliedLimits"`
	Diagnostics   json.RawMessage `json:"diagnostics,omitempty"`
}

// UnmarshalJSON accepts the alternative spellings.
func (g *ImpactGraph) UnmarshalJSON(b []byte) error {
	type plain ImpactGraph
	var aux struct {
		plain
		RepoIDSnake string  `json:"repo_id"`
		Applied     *Limits `json:"applied"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*g = ImpactGraph(aux.plain)
	if g.RepoID == "" {
		g.RepoID = aux.RepoIDSnake
	}
	if aux.Applied != nil && g.AppliedLimits == (Limits{}) {
		g.AppliedLimits = *aux.Applied
	}
	return nil
}

// PageOptions page a list (limit, offset).
type PageOptions struct {
	Limit  int
	Offset int
}

// FileDiagnostics are one file's import diagnostics.
type FileDiagnostics struct {
	File        string `json:"file"`
	Diagnostics struct {
		UnresolvedImportsTotal  int      `json:"unresolvedImportsTotal"`
		UnresolvedImportsSample []string `json:"unresolvedImportsSample"`
	} `json:"diagnostics"`
}

// ImpactDiagnostics is the answer of GET /v1/graph/impact/diagnostics and
// of docdex_impact_diagnostics. It accepts repoId and repo_id.
type ImpactDiagnostics struct {
	Schema      Schema            `json:"schema"`
	RepoID      string            `json:"repoId"`
	Total       int               `json:"total"`
	Limit       int               `json:"limit"`
	Offset      int               `json:"offset"`
	Truncated   bool              `json:"truncated"`
	Diagnostics []FileDiagnostics `json:"diagnostics"`
}

// UnmarshalJSON accepts repo_id for repoId.
func (d *ImpactDiagnostics) UnmarshalJSON(b []byte) error {
	type plain ImpactDiagnostics
	var aux struct {
		plain
		RepoIDSnake string `json:"repo_id"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*d = ImpactDiagnostics(aux.plain)
	if d.RepoID == "" {
		d.RepoID = aux.RepoIDSnake
	}
	return nil
}

// DagNode is a node of a reasoning DAG.
type DagNode struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt any             `json:"createdAt"`
	Payload   json.RawMessage `json:"payload"`
}

// DagExport is the JSON answer of GET /v1/dag/export.
type DagExport struct {
	Schema    Schema    `json:"schema"`
	RepoID    string    `json:"repoId"`
	SessionID string    `json:"sessionId"`
	Nodes     []DagNode `json:"nodes"`
	Edges     []Edge    `json:"edges"`
	Truncated bool      `json:"truncated"`
}

// IndexStatus is the answer of GET /v1/index/status.
type IndexStatus struct {
	RepoID             string `json:"repo_id"`
	Status             string `json:"status"` // ready, indexing, missing
	Ready              bool   `json:"ready"`
	LastUpdatedEpochMS int64  `json:"last_updated_epoch_ms,omitempty"`
}

// HookError is one failure reported by the validation hook.
type HookError struct {
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
}

// HookResult is the answer of POST /v1/hooks/validate.
type HookResult struct {
	Status string      `json:"status"` // pass or fail
	Errors []HookError `json:"errors,omitempty"`
}

// DelegateRequest is the body of POST /v1/delegate.
type DelegateRequest struct {
	TaskType    string `json:"task_type"`
	Instruction string `json:"instruction"`
	Context     string `json:"context"`
	Mode        string `json:"mode,omitempty"`
	MaxTokens   int    `json:"max_tokens,omitempty"`
	TimeoutMS   int    `json:"timeout_ms,omitempty"`
}

// DelegateResult is the answer of POST /v1/delegate.
type DelegateResult struct {
	ID        string   `json:"id"`
	Adapter   string   `json:"adapter"`
	Model     string   `json:"model,omitempty"`
	Output    string   `json:"output"`
	Draft     bool     `json:"draft"`
	Truncated bool     `json:"truncated"`
	Warnings  []string `json:"warnings"`
}

// Range is a source range.
type Range struct {
	StartLine int `json:"start_line"`
	StartCol  int `json:"start_col"`
	EndLine   int `json:"end_line"`
	EndCol    int `json:"end_col"`
}

// Symbol is one symbol of docdex_symbols.
type Symbol struct {
	SymbolID  string `json:"symbol_id"`
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Range     Range  `json:"range"`
	Signature string `json:"signature,omitempty"`
}

// Symbols is the payload of docdex_symbols.
type Symbols struct {
	File    string   `json:"file"`
	Symbols []Symbol `json:"symbols"`
}

// ASTNode is one node of docdex_ast.
type ASTNode struct {
	ID       any    `json:"id"`
	ParentID any    `json:"parent_id,omitempty"`
	Kind     string `json:"kind"`
	Name     string `json:"name,omitempty"`
	Range    Range  `json:"range"`
}

// AST is the payload of docdex_ast.
type AST struct {
	File       string    `json:"file"`
	Nodes      []ASTNode `json:"nodes"`
	TotalNodes int       `json:"total_nodes"`
	Truncated  bool      `json:"truncated"`
	Language   string    `json:"language,omitempty"`
}

// FileEntry is one result of docdex_files. The daemon lists either paths
// or objects; both decode.
type FileEntry struct {
	DocID   string `json:"doc_id,omitempty"`
	RelPath string `json:"rel_path,omitempty"`
	Path    string `json:"path,omitempty"`
	Kind    string `json:"kind,omitempty"`
}

// UnmarshalJSON accepts a bare path string or an object.
func (f *FileEntry) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*f = FileEntry{RelPath: s}
		return nil
	}
	type plain FileEntry
	return json.Unmarshal(b, (*plain)(f))
}

// Name is the entry's path (rel_path, else path, else doc_id).
func (f FileEntry) Name() string {
	switch {
	case f.RelPath != "":
		return f.RelPath
	case f.Path != "":
		return f.Path
	}
	return f.DocID
}

// Files is the payload of docdex_files.
type Files struct {
	Results []FileEntry `json:"results"`
	Total   int         `json:"total"`
	Limit   int         `json:"limit"`
	Offset  int         `json:"offset"`
}

// Stats is the payload of docdex_stats.
type Stats struct {
	NumDocs            int    `json:"num_docs"`
	IndexSizeBytes     int64  `json:"index_size_bytes"`
	LastUpdatedEpochMS int64  `json:"last_updated_epoch_ms"`
	RepoRoot           string `json:"repo_root"`
}

// Memory is one recalled memory.
type Memory struct {
	Content  string          `json:"content"`
	Score    float64         `json:"score"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// Recall is the payload of docdex_memory_recall.
type Recall struct {
	TopK    int      `json:"top_k"`
	Results []Memory `json:"results"`
}

// Saved is the payload of docdex_memory_save.
type Saved struct {
	ID        any `json:"id"`
	CreatedAt any `json:"created_at"`
}

// Preference is one stored preference of an agent.
type Preference struct {
	ID          any    `json:"id"`
	AgentID     string `json:"agent_id"`
	Content     string `json:"content"`
	Category    string `json:"category"`
	LastUpdated any    `json:"last_updated"`
}

// Profile is the payload of docdex_get_profile.
type Profile struct {
	Agents      []json.RawMessage `json:"agents"`
	Preferences []Preference      `json:"preferences"`
}

// Preference categories of docdex_save_preference.
const (
	CategoryStyle      = "style"
	CategoryTooling    = "tooling"
	CategoryConstraint = "constraint"
	CategoryWorkflow   = "workflow"
)

// Queued is the payload of docdex_save_preference.
type Queued struct {
	RequestID string `json:"request_id"`
	Status    string `json:"status"`
}

// Tree is the payload of docdex_tree. The tree is a rendered string or a
// JSON structure, depending on the daemon's version.
type Tree struct {
	Root string          `json:"root"`
	Tree json.RawMessage `json:"tree"`
}

// Text is the tree as text: the string itself, or the JSON structure.
func (t Tree) Text() string {
	var s string
	if json.Unmarshal(t.Tree, &s) == nil {
		return s
	}
	return string(t.Tree)
}

// Opened is the payload of docdex_open.
type Opened struct {
	Path       string `json:"path"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line"`
	TotalLines int    `json:"total_lines"`
	Content    string `json:"content"`
}

// IndexResult is the payload of docdex_index.
type IndexResult struct {
	Status string `json:"status"`
	Action string `json:"action"`
}

// Tool describes one MCP tool of tools/list.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}
