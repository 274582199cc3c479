package events

import (
	"fmt"
	"strings"
)

// SymbolInfo is one declaration.
type SymbolInfo struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Signature string `json:"signature,omitempty"`
	Doc       string `json:"doc,omitempty"`
	Parent    string `json:"parent,omitempty"`
	Line      int    `json:"line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
}

// FileSymbols are one file's declarations and a one-line-per-symbol
// summary for prompts.
type FileSymbols struct {
	Path    string       `json:"path"`
	Summary string       `json:"summary"`
	Symbols []SymbolInfo `json:"symbols,omitempty"`
}

// ASTNode is one node of a syntax outline.
type ASTNode struct {
	ID       string `json:"id"`
	ParentID string `json:"parent_id,omitempty"`
	Kind     string `json:"kind"`
	Name     string `json:"name,omitempty"`
	Line     int    `json:"line,omitempty"`
	EndLine  int    `json:"end_line,omitempty"`
}

// FileAST is one file's syntax outline (bounded).
type FileAST struct {
	Path      string    `json:"path"`
	Language  string    `json:"language,omitempty"`
	Nodes     []ASTNode `json:"nodes"`
	Total     int       `json:"total_nodes,omitempty"`
	Truncated bool      `json:"truncated,omitempty"`
}

// FileImpact is one file's place in the import graph.
type FileImpact struct {
	File      string   `json:"file"`
	Inbound   []string `json:"inbound"`
	Outbound  []string `json:"outbound"`
	Truncated bool     `json:"truncated,omitempty"`
}

// ImportDiagnostics counts a file's unresolved imports.
type ImportDiagnostics struct {
	UnresolvedImportsTotal  int      `json:"unresolvedImportsTotal"`
	UnresolvedImportsSample []string `json:"unresolvedImportsSample,omitempty"`
}

// FileImpactDiagnostics are one file's import diagnostics.
type FileImpactDiagnostics struct {
	File        string            `json:"file"`
	Diagnostics ImportDiagnostics `json:"diagnostics"`
}

// Memory sources.
const (
	MemorySourceRepo    = "repo"
	MemorySourceProject = "project"
)

// MemoryItem is one lesson and where it came from.
type MemoryItem struct {
	Text   string `json:"text"`
	Source string `json:"source"`
}

// String is the lesson's text.
func (m MemoryItem) String() string { return m.Text }

// Preference is a preference stated in a request.
type Preference struct {
	// Category is style, tooling, constraint or workflow.
	Category string `json:"category"`
	Content  string `json:"content"`
}

// ProfileItem is one stored preference of the agent.
type ProfileItem struct {
	Content  string `json:"content"`
	Category string `json:"category,omitempty"`
	// Source is "agent" for the agent's profile.
	Source string `json:"source"`
}

// Normalize replaces the spec's missing lists by empty ones, so the
// bundle's JSON always has every field.
func (b *ContextBundle) Normalize() {
	if b.Queries == nil {
		b.Queries = []string{}
	}
	if b.Snippets == nil {
		b.Snippets = []Snippet{}
	}
	if b.Symbols == nil {
		b.Symbols = []FileSymbols{}
	}
	if b.AST == nil {
		b.AST = []FileAST{}
	}
	if b.Impact == nil {
		b.Impact = []FileImpact{}
	}
	if b.ImpactDiagnostics == nil {
		b.ImpactDiagnostics = []FileImpactDiagnostics{}
	}
	if b.Memory == nil {
		b.Memory = []MemoryItem{}
	}
	if b.GoldenExamples == nil {
		b.GoldenExamples = []GoldenExample{}
	}
	if b.PreferencesDetected == nil {
		b.PreferencesDetected = []Preference{}
	}
	if b.Profile == nil {
		b.Profile = []ProfileItem{}
	}
	if b.Warnings == nil {
		b.Warnings = []string{}
	}
}

// Summary describes the bundle in one line for timelines.
func (b *ContextBundle) Summary() string {
	src := b.Index.Source
	if src == "" {
		src = "builtin"
	}
	s := fmt.Sprintf("%s index: %d files, %d queries, %d snippets, %d symbol files, %d ast, %d impact, %d memory, %d profile, %d golden",
		src, b.Index.NumFiles, len(b.Queries), len(b.Snippets), len(b.Symbols), len(b.AST), len(b.Impact), len(b.Memory), len(b.Profile), len(b.GoldenExamples))
	if len(b.Warnings) > 0 {
		s += fmt.Sprintf("; %d warning(s): %s", len(b.Warnings), strings.Join(b.Warnings, "; "))
	}
	return s
}
