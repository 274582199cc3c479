package docdex_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/docdex"
	"github.com/codali-dev/codali/pkg/docdex/docdextest"
)

const root = "/repos/hello"

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// waits records the client's waits instead of sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(_ context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return nil
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

func fake(t *testing.T, o docdextest.Options) *docdextest.Server {
	t.Helper()
	if o.Root == "" {
		o.Root = root
	}
	s := docdextest.New(t, o)
	s.Files["greet.go"] = "package hello\n\n// Greet says hello.\nfunc Greet(name string) string {\n\treturn \"Hello, \" + name\n}\n"
	s.Files["docs/guide.md"] = "# Guide\nCall Greet to greet.\n"
	s.Files["main.go"] = "package main\n\nimport \"hello\"\n\nfunc main() { hello.Greet(\"x\") }\n"
	s.Symbols["greet.go"] = []docdex.Symbol{{SymbolID: "greet.go#Greet", Name: "Greet", Kind: "function",
		Range: docdex.Range{StartLine: 4, EndLine: 6}, Signature: "func Greet(name string) string"}}
	s.AST["greet.go"] = []docdex.ASTNode{{ID: 1, Kind: "source_file"}, {ID: 2, ParentID: 1, Kind: "function_declaration", Name: "Greet"}}
	s.Inbound["greet.go"] = []string{"main.go"}
	s.Diagnostics = []docdex.FileDiagnostics{{File: "main.go"}}
	s.Diagnostics[0].Diagnostics.UnresolvedImportsTotal = 1
	s.Diagnostics[0].Diagnostics.UnresolvedImportsSample = []string{"./plugins/*"}
	s.Memories = []docdex.Memory{{Content: "run go test before finishing", Score: 0.9}}
	s.Preferences = []docdex.Preference{{ID: "p1", AgentID: "agent-7", Content: "use table-driven tests", Category: "style"}}
	return s
}

func client(t *testing.T, s *docdextest.Server, o docdex.Options) (*docdex.Client, *waits) {
	t.Helper()
	w := &waits{}
	o.URL = s.URL
	if o.Root == "" {
		o.Root = root
	}
	o.Sleep = w.sleep
	c, err := docdex.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c, w
}

func TestEveryEndpointAndTool(t *testing.T) {
	s := fake(t, docdextest.Options{Token: "s3cret", RepoID: "hello"})
	c, _ := client(t, s, docdex.Options{Token: "s3cret", RepoID: "hello", AgentID: "agent-7"})
	x := ctx(t)
	check := func(name string, err error, ok bool) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !ok {
			t.Errorf("%s: unexpected answer", name)
		}
	}
	check("health", c.Health(x), true)
	in, err := c.Initialize(x, root)
	check("initialize", err, in.RepoID == "hello" && in.Status == "ready" && in.RepoRoot == root)
	sr, err := c.Search(x, "greet", docdex.SearchOptions{Limit: 2, Snippets: true, MaxTokens: 500})
	check("search", err, len(sr.Hits) == 2 && sr.Hits[1].File() == "greet.go" && sr.Hits[1].DocID == "greet.go" && sr.TopScore > 0 && sr.Hits[0].LineStart > 0)
	sn, err := c.Snippet(x, "docs/guide.md", docdex.SnippetOptions{Window: 5, Query: "greet", TextOnly: true})
	check("snippet", err, sn.Doc != nil && sn.Doc.RelPath == "docs/guide.md" && sn.Snippet != nil && strings.Contains(sn.Snippet.Text, "Greet"))
	none, err := c.Snippet(x, "no/such.go", docdex.SnippetOptions{})
	check("snippet not found", err, none.Doc == nil && none.Snippet == nil)
	g, err := c.Impact(x, "greet.go", docdex.ImpactOptions{MaxDepth: 3, MaxEdges: 50, EdgeTypes: []string{"import"}})
	check("impact", err, g.RepoID == "hello" && len(g.Inbound) == 1 && g.AppliedLimits == (docdex.Limits{MaxEdges: 50, MaxDepth: 3}) && g.Schema.Name == "docdex.impact_graph")
	d, err := c.ImpactDiagnostics(x, "main.go", docdex.PageOptions{Limit: 10})
	check("impact diagnostics", err, d.Total == 1 && d.Diagnostics[0].Diagnostics.UnresolvedImportsTotal == 1)
	dag, err := c.DagExport(x, "sess-9", 20)
	check("dag export", err, dag.SessionID == "sess-9" && len(dag.Nodes) == 2 && len(dag.Edges) == 1)
	dot, err := c.DagExportText(x, "sess-9", "dot", 0)
	check("dag export dot", err, strings.HasPrefix(dot, "digraph"))
	check("rebuild", c.Rebuild(x), s.Rebuilds() == 1)
	st, err := c.IndexStatus(x)
	check("index status", err, st.Ready && st.Status == "ready" && st.LastUpdatedEpochMS > 0)
	hr, err := c.ValidateHooks(x, []string{"greet.go", "gone.go"})
	check("hooks", err, hr.Status == "fail" && len(hr.Errors) == 1 && hr.Errors[0].File == "gone.go")
	dr, err := c.Delegate(x, docdex.DelegateRequest{TaskType: "summarize", Instruction: "sum", Context: "x"})
	check("delegate", err, dr.Output == "done: sum" && dr.Adapter == "fake")

	tools, err := c.ListTools(x)
	check("tools/list", err, len(tools) == 14)
	sy, err := c.Symbols(x, "greet.go")
	check("symbols", err, sy.File == "greet.go" && len(sy.Symbols) == 1 && sy.Symbols[0].Signature == "func Greet(name string) string")
	ast, err := c.AST(x, "greet.go", 1)
	check("ast", err, len(ast.Nodes) == 1 && ast.TotalNodes == 2 && ast.Truncated)
	fl, err := c.Files(x, docdex.PageOptions{Limit: 2})
	check("files", err, fl.Total == 3 && len(fl.Results) == 2 && fl.Results[0].Name() == "docs/guide.md")
	stats, err := c.Stats(x)
	check("stats", err, stats.NumDocs == 3 && stats.LastUpdatedEpochMS > 0 && stats.RepoRoot == root)
	rc, err := c.MemoryRecall(x, "tests", 3)
	check("memory recall", err, len(rc.Results) == 1 && rc.Results[0].Content == "run go test before finishing")
	sv, err := c.MemorySave(x, "lesson one", map[string]any{"source": "critic"})
	check("memory save", err, sv.ID == "mem-1" && len(s.SavedMemories()) == 1)
	pr, err := c.GetProfile(x, "agent-7")
	check("profile", err, len(pr.Preferences) == 1 && pr.Preferences[0].Category == "style")
	q, err := c.SavePreference(x, "agent-7", "use date-fns", docdex.CategoryConstraint)
	check("save preference", err, q.Status == "queued" && s.SavedPreferences()[0].Content == "use date-fns")
	tr, err := c.Tree(x, "docs", 2, false)
	check("tree", err, tr.Text() == "docs/guide.md")
	op, err := c.Open(x, "greet.go", 3, 4)
	check("open", err, op.StartLine == 3 && op.EndLine == 4 && op.TotalLines == 7 && strings.HasPrefix(op.Content, "// Greet"))
	ss, err := c.SearchTool(x, "guide", 5)
	check("search tool", err, len(ss.Hits) == 1 && ss.Hits[0].RelPath == "docs/guide.md")
	ix, err := c.Index(x, []string{"greet.go"})
	check("index", err, ix.Status == "ok" && s.Rebuilds() == 2)
	di, err := c.ImpactDiagnosticsTool(x, "main.go", docdex.PageOptions{})
	check("impact diagnostics tool", err, di.Total == 1 && di.RepoID == "hello")
	if _, err := c.WebResearch(x, "go generics", 3); !errors.Is(err, docdex.ErrToolFailed) || !strings.Contains(err.Error(), "DOCDEX_WEB_ENABLED") {
		t.Errorf("web research without DOCDEX_WEB_ENABLED: %v, want a tool error naming it", err)
	}

	// Headers: auth, repository and agent on every call; the MCP session
	// from initialize sent back on every later MCP call.
	session := ""
	for _, call := range s.Calls() {
		if call.Header.Get("Authorization") != "Bearer s3cret" {
			t.Errorf("%s without the bearer token", call.Name)
		}
		if call.Header.Get(docdex.HeaderAgentID) != "agent-7" {
			t.Errorf("%s without the agent header", call.Name)
		}
		switch {
		case call.Name == "rpc:initialize":
			var p map[string]any
			_ = json.Unmarshal(call.Body, &p)
			if p["workspace_root"] != root || p["protocolVersion"] != docdex.MCPProtocolVersion || p["agent_id"] != "agent-7" {
				t.Errorf("MCP initialize params %v", p)
			}
			session = "sess-1"
		case strings.HasPrefix(call.Name, "tool:") || call.Name == "rpc:tools/list":
			if call.Header.Get(docdex.HeaderMCPSession) != session || call.Header.Get(docdex.HeaderMCPSession2) != session || session == "" {
				t.Errorf("%s session headers %q/%q, want %q", call.Name, call.Header.Get(docdex.HeaderMCPSession), call.Header.Get(docdex.HeaderMCPSession2), session)
			}
		case call.Name == "GET /healthz" || call.Name == "POST /v1/initialize":
		default:
			if call.Header.Get(docdex.HeaderRepoID) != "hello" {
				t.Errorf("%s without the repo header", call.Name)
			}
		}
	}
	if n := strings.Count(strings.Join(s.Names(), ","), "rpc:initialize"); n != 1 {
		t.Errorf("MCP initialize ran %d times, want once per client", n)
	}
}

func TestAlternativeSpellings(t *testing.T) {
	s := fake(t, docdextest.Options{RepoID: "hello", AltSpelling: true})
	c, _ := client(t, s, docdex.Options{RepoID: "hello"})
	g, err := c.Impact(ctx(t), "greet.go", docdex.ImpactOptions{MaxDepth: 2, MaxEdges: 9})
	if err != nil || g.RepoID != "hello" || g.AppliedLimits != (docdex.Limits{MaxEdges: 9, MaxDepth: 2}) {
		t.Errorf("impact with repo_id/applied: %+v, %v", g, err)
	}
	d, err := c.ImpactDiagnostics(ctx(t), "", docdex.PageOptions{})
	if err != nil || d.RepoID != "hello" {
		t.Errorf("diagnostics with repo_id: %+v, %v", d, err)
	}
	// Spellings the fake does not produce but the daemon may.
	var fe []docdex.FileEntry
	if err := json.Unmarshal([]byte(`["a.go", {"path":"b.go"}, {"doc_id":"c.go"}]`), &fe); err != nil || fe[0].Name() != "a.go" || fe[1].Name() != "b.go" || fe[2].Name() != "c.go" {
		t.Errorf("files as strings and objects: %+v, %v", fe, err)
	}
	if h := (docdex.Hit{Path: "x/y.go"}); h.File() != "x/y.go" {
		t.Errorf("hit without rel_path: %q", h.File())
	}
	var tr docdex.Tree
	if err := json.Unmarshal([]byte(`{"root":".","tree":{"name":"."}}`), &tr); err != nil || tr.Text() != `{"name":"."}` {
		t.Errorf("structured tree: %q, %v", tr.Text(), err)
	}
}

func TestNoSessionPassesProjectRoot(t *testing.T) {
	s := fake(t, docdextest.Options{NoSession: true})
	c, _ := client(t, s, docdex.Options{})
	if _, err := c.Stats(ctx(t)); err != nil {
		t.Fatal(err)
	}
	calls := s.Calls()
	last := calls[len(calls)-1]
	var p struct {
		Arguments map[string]any `json:"arguments"`
	}
	_ = json.Unmarshal(last.Body, &p)
	if p.Arguments["project_root"] != root {
		t.Errorf("tool call without a session lacks project_root: %s", last.Body)
	}
}

func TestErrorsMapToSentinels(t *testing.T) {
	cases := []struct {
		name  string
		fault docdextest.Fault
		opts  docdextest.Options
		call  func(c *docdex.Client) error
		want  error
		text  string
	}{
		{"invalid_argument", docdextest.Fault{Match: "GET /search", Status: 400, Code: "invalid_argument"}, docdextest.Options{}, search, docdex.ErrInvalidArgument, "invalid_argument"},
		{"missing_repo", docdextest.Fault{}, docdextest.Options{RequireRepo: true}, search, docdex.ErrMissingRepo, "missing_repo"},
		{"memory_disabled", docdextest.Fault{Match: "tool:docdex_memory_recall", Status: 409, Code: "memory_disabled"}, docdextest.Options{}, recall, docdex.ErrMemoryDisabled, "HTTP 409"},
		{"embedding_timeout", docdextest.Fault{Match: "GET /search", Status: 504, Code: "embedding_timeout"}, docdextest.Options{}, search, docdex.ErrEmbeddingTimeout, "504"},
		{"plain-text 500 stays readable", docdextest.Fault{Match: "GET /search", Status: 500, PlainText: "panic: index shard 3 corrupt"}, docdextest.Options{}, search, docdex.ErrServer, "panic: index shard 3 corrupt"},
		{"401 with an empty body", docdextest.Fault{}, docdextest.Options{Token: "other"}, search, docdex.ErrUnauthorized, "401"},
		{"unknown tool", docdextest.Fault{}, docdextest.Options{}, func(c *docdex.Client) error { return c.CallTool(context.Background(), "docdex_nope", nil, nil) }, docdex.ErrUnknownTool, "-32601"},
		{"bad tool arguments", docdextest.Fault{}, docdextest.Options{}, func(c *docdex.Client) error { _, err := c.Symbols(context.Background(), ""); return err }, docdex.ErrInvalidArgument, "path is required"},
		{"MCP tool error", docdextest.Fault{Match: "tool:docdex_symbols", ToolError: "parser crashed on greet.go"}, docdextest.Options{}, func(c *docdex.Client) error { _, err := c.Symbols(context.Background(), "greet.go"); return err }, docdex.ErrToolFailed, "parser crashed on greet.go"},
		{"unknown_repo without a root to initialize", docdextest.Fault{Match: "GET /search", Status: 404, Code: "unknown_repo"}, docdextest.Options{}, func(c *docdex.Client) error {
			_, err := c.With(docdex.Scope{Root: "/"}).Search(context.Background(), "x", docdex.SearchOptions{})
			return err
		}, docdex.ErrUnknownRepo, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := fake(t, tc.opts)
			if tc.fault.Match != "" {
				tc.fault.Times = 5
				s.Inject(tc.fault)
			}
			c, _ := client(t, s, docdex.Options{})
			err := tc.call(c)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			var de *docdex.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %T is not a *docdex.Error", err)
			}
			if !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %q does not say %q", err, tc.text)
			}
		})
	}
}

func search(c *docdex.Client) error {
	_, err := c.Search(context.Background(), "greet", docdex.SearchOptions{})
	return err
}

func recall(c *docdex.Client) error {
	_, err := c.MemoryRecall(context.Background(), "x", 1)
	return err
}

func TestRecovery(t *testing.T) {
	cases := []struct {
		name      string
		opts      docdextest.Options
		faults    []docdextest.Fault
		call      func(c *docdex.Client) error
		wantWaits []time.Duration
		notices   []string
		check     func(t *testing.T, s *docdextest.Server)
	}{
		{
			name:      "202 indexing then ready honours retry_after_ms",
			faults:    []docdextest.Fault{{Match: "GET /search", Times: 2, Status: 202, Code: "indexing_in_progress", RetryAfterMS: 1500}},
			call:      search,
			wantWaits: []time.Duration{1500 * time.Millisecond, 1500 * time.Millisecond},
			notices:   []string{"wait", "wait"},
		},
		{
			name:      "429 honours Retry-After",
			faults:    []docdextest.Fault{{Match: "GET /search", Status: 429, Code: "rate_limited", RetryAfter: "2"}},
			call:      search,
			wantWaits: []time.Duration{2 * time.Second},
			notices:   []string{"wait"},
		},
		{
			name:   "429 without a body honours Retry-After",
			faults: []docdextest.Fault{{Match: "GET /v1/graph/impact", Status: 429, RetryAfter: "1"}},
			call: func(c *docdex.Client) error {
				_, err := c.Impact(context.Background(), "greet.go", docdex.ImpactOptions{})
				return err
			},
			wantWaits: []time.Duration{time.Second},
			notices:   []string{"wait"},
		},
		{
			name:      "MCP -32029 honours data.retry_after_ms",
			faults:    []docdextest.Fault{{Match: "tool:docdex_stats", RPCCode: -32029, RetryAfterMS: 700}},
			call:      func(c *docdex.Client) error { _, err := c.Stats(context.Background()); return err },
			wantWaits: []time.Duration{700 * time.Millisecond},
			notices:   []string{"wait"},
		},
		{
			name:    "unknown_repo leads to initialize",
			opts:    docdextest.Options{RequireInit: true},
			call:    search,
			notices: []string{"initialize"},
			check: func(t *testing.T, s *docdextest.Server) {
				if got := strings.Join(s.Names(), ","); got != "GET /search,POST /v1/initialize,GET /search" {
					t.Errorf("calls %s", got)
				}
			},
		},
		{
			name:    "stale_index leads to a rebuild",
			faults:  []docdextest.Fault{{Match: "GET /search", Status: 409, Code: "stale_index"}},
			call:    search,
			notices: []string{"rebuild"},
			check: func(t *testing.T, s *docdextest.Server) {
				if s.Rebuilds() != 1 {
					t.Errorf("rebuilds %d, want 1", s.Rebuilds())
				}
			},
		},
		{
			name:    "missing_index on an MCP tool leads to a rebuild",
			faults:  []docdextest.Fault{{Match: "tool:docdex_symbols", Status: 409, Code: "missing_index"}},
			call:    func(c *docdex.Client) error { _, err := c.Symbols(context.Background(), "greet.go"); return err },
			notices: []string{"rebuild"},
			check: func(t *testing.T, s *docdextest.Server) {
				if s.Rebuilds() != 1 {
					t.Errorf("rebuilds %d, want 1", s.Rebuilds())
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := fake(t, tc.opts)
			for _, f := range tc.faults {
				s.Inject(f)
			}
			var mu sync.Mutex
			var notices []string
			c, w := client(t, s, docdex.Options{Observe: func(n docdex.Notice) {
				mu.Lock()
				notices = append(notices, n.Action)
				mu.Unlock()
			}})
			if err := tc.call(c); err != nil {
				t.Fatalf("call failed after recovery: %v", err)
			}
			if got := w.all(); len(got) != len(tc.wantWaits) || (len(got) > 0 && !equal(got, tc.wantWaits)) {
				t.Errorf("waits %v, want %v", got, tc.wantWaits)
			}
			mu.Lock()
			if strings.Join(notices, ",") != strings.Join(tc.notices, ",") {
				t.Errorf("notices %v, want %v", notices, tc.notices)
			}
			mu.Unlock()
			if tc.check != nil {
				tc.check(t, s)
			}
		})
	}
}

func equal(a, b []time.Duration) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func TestWaitIsBounded(t *testing.T) {
	s := fake(t, docdextest.Options{})
	s.Inject(docdextest.Fault{Match: "GET /search", Times: 100, Status: 202, Code: "indexing_in_progress", RetryAfterMS: 4000})
	c, w := client(t, s, docdex.Options{MaxWait: 10 * time.Second})
	err := search(c)
	if !errors.Is(err, docdex.ErrIndexing) || !strings.Contains(err.Error(), "gave up after waiting 8s") {
		t.Fatalf("error %v, want indexing after waiting 8s", err)
	}
	if len(w.all()) != 2 {
		t.Errorf("waited %v, want two waits within the 10 s budget", w.all())
	}
	// A stale index that stays stale after one rebuild is reported.
	s.Inject(docdextest.Fault{Match: "GET /v1/graph/impact", Times: 5, Status: 409, Code: "stale_index"})
	if _, err := c.Impact(ctx(t), "greet.go", docdex.ImpactOptions{}); !errors.Is(err, docdex.ErrStaleIndex) || s.Rebuilds() != 1 {
		t.Errorf("still stale: %v after %d rebuilds, want ErrStaleIndex after one", err, s.Rebuilds())
	}
}

func TestDaemonDown(t *testing.T) {
	s := fake(t, docdextest.Options{})
	c, _ := client(t, s, docdex.Options{Timeout: 5 * time.Second})
	s.Close()
	if err := c.Health(ctx(t)); !errors.Is(err, docdex.ErrUnavailable) {
		t.Fatalf("health of a stopped daemon: %v, want ErrUnavailable", err)
	}
	if _, err := c.Stats(ctx(t)); !errors.Is(err, docdex.ErrUnavailable) {
		t.Fatalf("tool on a stopped daemon: %v, want ErrUnavailable", err)
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"ftp://x", "127.0.0.1:28491", "http://"} {
		if _, err := docdex.New(docdex.Options{URL: u}); !errors.Is(err, docdex.ErrInvalidArgument) {
			t.Errorf("url %q: %v, want ErrInvalidArgument", u, err)
		}
	}
	c, err := docdex.New(docdex.Options{})
	if err != nil || c.URL() != docdex.DefaultURL {
		t.Errorf("default url %v, %v", c, err)
	}
}
