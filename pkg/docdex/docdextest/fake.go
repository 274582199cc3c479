// Package docdextest is an in-process fake Docdex daemon for tests. It
// reproduces the daemon's documented wire format: the HTTP endpoints, the
// MCP JSON-RPC transport on POST /v1/mcp with session headers and payloads
// as JSON inside content[0].text, bearer auth, repository selection, the
// error body and its status codes, and both field spellings where the
// daemon has two. Faults (indexing, rate limits, stale index, plain-text
// 500s, tool errors) are injected per endpoint or tool.
package docdextest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/docdex"
)

// Options configure the fake.
type Options struct {
	// Token, when set, is the bearer token every request must carry.
	Token string
	// RepoID is the mounted repository's id. Default "repo-1".
	RepoID string
	// Root is the repository's absolute path.
	Root string
	// RequireRepo answers 400 missing_repo when a request selects no
	// repository (several repositories mounted).
	RequireRepo bool
	// RequireInit answers 404 unknown_repo until POST /v1/initialize
	// names Root.
	RequireInit bool
	// AltSpelling answers with the alternative field names (repo_id,
	// applied) instead of repoId, appliedLimits.
	AltSpelling bool
	// NoSession makes MCP initialize return no session header, so clients
	// must pass project_root in every call.
	NoSession bool
	// LastUpdated is the index's last update (default: now).
	LastUpdated time.Time
}

// Fault is an error the fake answers instead of the normal response.
type Fault struct {
	// Match is the call it applies to: "GET /search", "POST /v1/mcp"
	// (any MCP method), "tool:docdex_symbols", "rpc:initialize" or "*".
	Match string
	// Times is how many calls it applies to (default 1).
	Times int
	// Status is the HTTP status (for an HTTP fault).
	Status int
	// Code is the error body's code; empty with PlainText set.
	Code string
	// RetryAfterMS goes into details.retry_after_ms (202) or the body's
	// retry_after_ms.
	RetryAfterMS int
	// RetryAfter is the Retry-After header value.
	RetryAfter string
	// PlainText answers a plain-text body instead of the error body.
	PlainText string
	// RPCCode makes it a JSON-RPC error (HTTP 200) with this code.
	RPCCode int
	// ToolError makes the tool answer isError with this text.
	ToolError string
}

// Call is one request the fake received.
type Call struct {
	// Name is "GET /search", "rpc:initialize" or "tool:docdex_symbols".
	Name string
	// Header is the request's headers.
	Header http.Header
	// Query is the request's query.
	Query map[string][]string
	// Body is the request's body (for MCP: the params).
	Body json.RawMessage
}

// SavedPreference is a preference saved through docdex_save_preference.
type SavedPreference struct {
	AgentID, Content, Category string
}

// Server is the fake daemon. Its data fields may be set before the first
// request; methods are safe for concurrent use.
type Server struct {
	// URL is the base URL.
	URL string
	// Files are the repository's files by relative path.
	Files map[string]string
	// Symbols are docdex_symbols answers by path.
	Symbols map[string][]docdex.Symbol
	// AST are docdex_ast nodes by path.
	AST map[string][]docdex.ASTNode
	// Inbound and Outbound are the impact graph's edges by file.
	Inbound, Outbound map[string][]string
	// Diagnostics are the impact diagnostics.
	Diagnostics []docdex.FileDiagnostics
	// Memories are what docdex_memory_recall answers (followed by what
	// docdex_memory_save stored).
	Memories []docdex.Memory
	// Preferences are what docdex_get_profile answers.
	Preferences []docdex.Preference

	o           Options
	srv         *httptest.Server
	mu          sync.Mutex
	calls       []Call
	faults      []*Fault
	initialized bool
	rebuilds    int
	nextSession int
	sessions    map[string]bool
	saved       []string
	prefs       []SavedPreference
}

// New starts a fake daemon that stops with the test.
func New(t testing.TB, o Options) *Server {
	t.Helper()
	if o.RepoID == "" {
		o.RepoID = "repo-1"
	}
	if o.LastUpdated.IsZero() {
		o.LastUpdated = time.Now()
	}
	s := &Server{o: o, Files: map[string]string{}, Symbols: map[string][]docdex.Symbol{}, AST: map[string][]docdex.ASTNode{},
		Inbound: map[string][]string{}, Outbound: map[string][]string{}, sessions: map[string]bool{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Close stops the daemon (for "daemon down" tests).
func (s *Server) Close() { s.srv.Close() }

// LoadDir fills Files from a directory (skipping .git), for tests that
// serve a real repository.
func (s *Server) LoadDir(dir string) error {
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		s.mu.Lock()
		s.Files[filepath.ToSlash(rel)] = string(data)
		s.mu.Unlock()
		return nil
	})
}

// Inject adds a fault.
func (s *Server) Inject(f Fault) {
	if f.Times == 0 {
		f.Times = 1
	}
	s.mu.Lock()
	s.faults = append(s.faults, &f)
	s.mu.Unlock()
}

// Calls returns the requests received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Names returns the names of the requests received so far.
func (s *Server) Names() []string {
	var out []string
	for _, c := range s.Calls() {
		out = append(out, c.Name)
	}
	return out
}

// Rebuilds counts POST /v1/index/rebuild and docdex_index calls.
func (s *Server) Rebuilds() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rebuilds
}

// SavedMemories returns the texts saved with docdex_memory_save.
func (s *Server) SavedMemories() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.saved...)
}

// SavedPreferences returns the preferences saved with
// docdex_save_preference.
func (s *Server) SavedPreferences() []SavedPreference {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SavedPreference(nil), s.prefs...)
}

// fault returns and consumes the first fault matching name.
func (s *Server) fault(names ...string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.faults {
		if f.Times <= 0 {
			continue
		}
		for _, n := range names {
			if f.Match == n || f.Match == "*" {
				f.Times--
				g := *f
				return &g
			}
		}
	}
	return nil
}

func (s *Server) record(name string, r *http.Request, body json.RawMessage) {
	s.mu.Lock()
	s.calls = append(s.calls, Call{Name: name, Header: r.Header.Clone(), Query: r.URL.Query(), Body: body})
	s.mu.Unlock()
}

// writeError writes the daemon's error body.
func writeError(w http.ResponseWriter, status int, code, msg string, retryAfterMS int) {
	body := map[string]any{"code": code, "message": msg}
	if retryAfterMS > 0 {
		if code == docdex.CodeIndexingInProgress {
			body["details"] = map[string]any{"retry_after_ms": retryAfterMS}
		} else {
			body["retry_after_ms"] = retryAfterMS
		}
	}
	writeJSON(w, status, map[string]any{"error": body})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeFault answers an HTTP fault.
func writeFault(w http.ResponseWriter, f *Fault) {
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	if f.PlainText != "" || f.Code == "" {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(f.PlainText))
		return
	}
	writeError(w, f.Status, f.Code, "injected "+f.Code, f.RetryAfterMS)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var raw json.RawMessage
	if r.Body != nil {
		_ = json.NewDecoder(r.Body).Decode(&raw)
	}
	name := r.Method + " " + r.URL.Path
	if strings.HasPrefix(r.URL.Path, "/snippet/") {
		name = r.Method + " /snippet/"
	}
	if r.URL.Path == "/v1/mcp" {
		s.serveMCP(w, r, raw)
		return
	}
	s.record(name, r, raw)
	if s.o.Token != "" && r.Header.Get("Authorization") != "Bearer "+s.o.Token {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if f := s.fault(name); f != nil {
		writeFault(w, f)
		return
	}
	switch name {
	case "GET /healthz":
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("ok"))
		return
	case "POST /v1/initialize":
		s.initialize(w, raw)
		return
	}
	if !s.repoOK(w, r, raw) {
		return
	}
	switch name {
	case "GET /search":
		q := r.URL.Query()
		limit, _ := strconv.Atoi(q.Get("limit"))
		writeJSON(w, 200, s.search(q.Get("q"), limit))
	case "GET /snippet/":
		s.snippet(w, r)
	case "GET /v1/graph/impact":
		s.impact(w, r)
	case "GET /v1/graph/impact/diagnostics":
		writeJSON(w, 200, s.diagnostics(r.URL.Query().Get("file")))
	case "GET /v1/dag/export":
		s.dag(w, r)
	case "POST /v1/index/rebuild":
		s.mu.Lock()
		s.rebuilds++
		s.o.LastUpdated = time.Now()
		s.mu.Unlock()
		writeJSON(w, 200, map[string]any{"status": "ok", "repo_id": s.o.RepoID})
	case "GET /v1/index/status":
		writeJSON(w, 200, map[string]any{"repo_id": s.o.RepoID, "status": "ready", "ready": true, "last_updated_epoch_ms": s.o.LastUpdated.UnixMilli()})
	case "POST /v1/hooks/validate":
		var b struct {
			Files []string `json:"files"`
		}
		_ = json.Unmarshal(raw, &b)
		var errs []map[string]any
		for _, f := range b.Files {
			if _, ok := s.file(f); !ok {
				errs = append(errs, map[string]any{"message": "no such file", "file": f})
			}
		}
		if len(errs) > 0 {
			writeJSON(w, 200, map[string]any{"status": "fail", "errors": errs})
			return
		}
		writeJSON(w, 200, map[string]any{"status": "pass"})
	case "POST /v1/delegate":
		var b docdex.DelegateRequest
		if json.Unmarshal(raw, &b) != nil || b.TaskType == "" || b.Instruction == "" {
			writeError(w, 400, docdex.CodeInvalidArgument, "task_type and instruction are required", 0)
			return
		}
		writeJSON(w, 200, map[string]any{"id": "dlg-1", "adapter": "fake", "model": "fake-1", "output": "done: " + b.Instruction,
			"draft": false, "truncated": false, "warnings": []string{}})
	default:
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(404)
		_, _ = w.Write([]byte("404 page not found"))
	}
}

func (s *Server) initialize(w http.ResponseWriter, raw json.RawMessage) {
	var b struct {
		RootURI  string `json:"rootUri"`
		RootURI2 string `json:"root_uri"`
	}
	_ = json.Unmarshal(raw, &b)
	uri := b.RootURI
	if uri == "" {
		uri = b.RootURI2
	}
	if !strings.HasPrefix(uri, "file://") {
		writeError(w, 400, docdex.CodeInvalidArgument, "rootUri must be a file:// URI", 0)
		return
	}
	root := strings.TrimPrefix(uri, "file://")
	if s.o.Root != "" && filepath.Clean(root) != filepath.Clean(s.o.Root) {
		writeError(w, 400, docdex.CodeInvalidArgument, "root is not mounted", 0)
		return
	}
	s.mu.Lock()
	s.initialized = true
	s.mu.Unlock()
	writeJSON(w, 200, map[string]any{"repo_id": s.o.RepoID, "status": "ready", "repo_root": root})
}

// repoOK checks repository selection: header, repo_id query or body field.
func (s *Server) repoOK(w http.ResponseWriter, r *http.Request, raw json.RawMessage) bool {
	id := r.Header.Get(docdex.HeaderRepoID)
	if id == "" {
		id = r.URL.Query().Get("repo_id")
	}
	if id == "" && len(raw) > 0 {
		var b struct {
			RepoID string `json:"repo_id"`
		}
		_ = json.Unmarshal(raw, &b)
		id = b.RepoID
	}
	s.mu.Lock()
	needInit := s.o.RequireInit && !s.initialized
	s.mu.Unlock()
	switch {
	case id == "" && s.o.RequireRepo:
		writeError(w, 400, docdex.CodeMissingRepo, "several repositories are mounted; select one", 0)
		return false
	case id != "" && id != s.o.RepoID, needInit:
		writeError(w, 404, docdex.CodeUnknownRepo, "unknown repository "+id, 0)
		return false
	}
	return true
}

func (s *Server) file(p string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.Files[strings.TrimPrefix(p, "./")]
	return c, ok
}

func kind(p string) string {
	switch filepath.Ext(p) {
	case ".md", ".txt", ".rst":
		return "doc"
	}
	return "code"
}

func words(q string) []string {
	return strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_'
	})
}

// search scores files by occurrences of the query's words.
func (s *Server) search(q string, limit int) map[string]any {
	if limit <= 0 {
		limit = 8
	}
	s.mu.Lock()
	paths := make([]string, 0, len(s.Files))
	for p := range s.Files {
		paths = append(paths, p)
	}
	files := s.Files
	s.mu.Unlock()
	sort.Strings(paths)
	type scored struct {
		path  string
		score float64
		line  int
	}
	var hits []scored
	for _, p := range paths {
		lower := strings.ToLower(files[p])
		score, line := 0.0, 0
		for _, wd := range words(q) {
			n := strings.Count(lower, wd)
			if n > 0 && line == 0 {
				line = strings.Count(lower[:strings.Index(lower, wd)], "\n") + 1
			}
			score += float64(n)
		}
		if score > 0 {
			hits = append(hits, scored{p, score, line})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	out := []map[string]any{}
	top := 0.0
	for _, h := range hits {
		if h.score > top {
			top = h.score
		}
		content := files[h.path]
		lines := strings.Split(content, "\n")
		end := h.line + 4
		if end > len(lines) {
			end = len(lines)
		}
		out = append(out, map[string]any{"doc_id": h.path, "rel_path": h.path, "path": filepath.Join(s.o.Root, h.path),
			"kind": kind(h.path), "score": h.score, "summary": strings.TrimSpace(lines[0]),
			"snippet": strings.Join(lines[h.line-1:end], "\n"), "token_estimate": len(content) / 4,
			"line_start": h.line, "line_end": end})
	}
	return map[string]any{"hits": out, "top_score": top}
}

func (s *Server) snippet(w http.ResponseWriter, r *http.Request) {
	docID := strings.TrimPrefix(r.URL.Path, "/snippet/")
	content, ok := s.file(docID)
	if !ok {
		writeJSON(w, 200, map[string]any{"doc": nil, "snippet": nil})
		return
	}
	window, _ := strconv.Atoi(r.URL.Query().Get("window"))
	if window <= 0 {
		window = 40
	}
	lines := strings.Split(content, "\n")
	start := 0
	if q := strings.ToLower(r.URL.Query().Get("q")); q != "" {
		for i, l := range lines {
			if strings.Contains(strings.ToLower(l), q) {
				start = max(0, i-window/4)
				break
			}
		}
	}
	end := min(len(lines), start+window)
	writeJSON(w, 200, map[string]any{
		"doc":     map[string]any{"doc_id": docID, "rel_path": docID, "kind": kind(docID), "summary": strings.TrimSpace(lines[0]), "token_estimate": len(content) / 4},
		"snippet": map[string]any{"text": strings.Join(lines[start:end], "\n"), "truncated": end < len(lines), "origin": "file", "line_start": start + 1, "line_end": end},
	})
}

func (s *Server) impact(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	file := q.Get("file")
	if file == "" {
		writeError(w, 400, docdex.CodeInvalidArgument, "file is required", 0)
		return
	}
	maxEdges, _ := strconv.Atoi(q.Get("maxEdges"))
	maxDepth, _ := strconv.Atoi(q.Get("maxDepth"))
	if maxEdges == 0 {
		maxEdges = 1000
	}
	if maxDepth == 0 {
		maxDepth = 10
	}
	s.mu.Lock()
	in, out := append([]string{}, s.Inbound[file]...), append([]string{}, s.Outbound[file]...)
	s.mu.Unlock()
	edges := []map[string]any{}
	for _, f := range in {
		edges = append(edges, map[string]any{"source": f, "target": file, "kind": "import"})
	}
	for _, f := range out {
		edges = append(edges, map[string]any{"source": file, "target": f, "kind": "import"})
	}
	truncated := len(edges) > maxEdges
	if truncated {
		edges = edges[:maxEdges]
	}
	body := map[string]any{"schema": map[string]any{"name": "docdex.impact_graph", "version": 1}, "source": file,
		"inbound": in, "outbound": out, "edges": edges, "truncated": truncated}
	limits := map[string]any{"maxEdges": maxEdges, "maxDepth": maxDepth}
	if s.o.AltSpelling {
		body["repo_id"], body["applied"] = s.o.RepoID, limits
	} else {
		body["repoId"], body["appliedLimits"] = s.o.RepoID, limits
	}
	writeJSON(w, 200, body)
}

func (s *Server) diagnostics(file string) map[string]any {
	s.mu.Lock()
	all := append([]docdex.FileDiagnostics(nil), s.Diagnostics...)
	s.mu.Unlock()
	list := []docdex.FileDiagnostics{}
	for _, d := range all {
		if file == "" || d.File == file {
			list = append(list, d)
		}
	}
	body := map[string]any{"schema": map[string]any{"name": "docdex.impact_diagnostics", "version": 1},
		"total": len(list), "limit": 200, "offset": 0, "truncated": false, "diagnostics": list}
	if s.o.AltSpelling {
		body["repo_id"] = s.o.RepoID
	} else {
		body["repoId"] = s.o.RepoID
	}
	return body
}

func (s *Server) dag(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	sid := q.Get("session_id")
	switch q.Get("format") {
	case "text":
		w.Header().Set("Content-Type", "text/plain")
		_, _ = fmt.Fprintf(w, "session %s\n  n1 -> n2\n", sid)
	case "dot":
		w.Header().Set("Content-Type", "text/vnd.graphviz")
		_, _ = fmt.Fprintf(w, "digraph %q { n1 -> n2 }\n", sid)
	default:
		writeJSON(w, 200, map[string]any{"schema": map[string]any{"name": "docdex.dag", "version": 1}, "repoId": s.o.RepoID, "sessionId": sid,
			"nodes": []map[string]any{{"id": "n1", "type": "query", "createdAt": 1, "payload": map[string]any{}}, {"id": "n2", "type": "answer", "createdAt": 2, "payload": map[string]any{}}},
			"edges": []map[string]any{{"source": "n1", "target": "n2"}}, "truncated": false})
	}
}
