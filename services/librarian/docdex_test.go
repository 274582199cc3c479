package librarian_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/docdex"
	"github.com/codali-dev/codali/pkg/docdex/docdextest"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/codali-dev/codali/services/librarian"
)

// PhaseOne is the mandatory Phase 1 sequence, consecutive repeats folded.
var phaseOne = []string{librarian.ActHealth, librarian.ActInitialize, librarian.ActStats, librarian.ActFiles, librarian.ActSearch,
	librarian.ActOpen, librarian.ActSymbols, librarian.ActAST, librarian.ActImpactGraph, librarian.ActMemoryRecall,
	librarian.ActGetProfile, librarian.ActImpactDiagnostics}

// fakeHello serves the example repository copied to dir.
func fakeHello(t *testing.T, dir string, o docdextest.Options) *docdextest.Server {
	t.Helper()
	o.Root = dir
	s := docdextest.New(t, o)
	if err := s.LoadDir(dir); err != nil {
		t.Fatal(err)
	}
	s.Symbols["greet.go"] = []docdex.Symbol{{SymbolID: "greet.go#Greet", Name: "Greet", Kind: "function",
		Range: docdex.Range{StartLine: 5, EndLine: 7}, Signature: "func Greet(name string) string"}}
	s.AST["greet.go"] = []docdex.ASTNode{{ID: 1, Kind: "source_file"}, {ID: 2, ParentID: 1, Kind: "function_declaration", Name: "Greet"}}
	s.Inbound["greet.go"] = []string{"greet_test.go"}
	// greet_test.go has no edges: the graph looks sparse there.
	s.Diagnostics = []docdex.FileDiagnostics{{File: "greet_test.go"}}
	s.Diagnostics[0].Diagnostics.UnresolvedImportsTotal = 1
	s.Diagnostics[0].Diagnostics.UnresolvedImportsSample = []string{"./fixtures/*"}
	s.Memories = []docdex.Memory{{Content: "the empty name must give Hello, world!", Score: 0.8}}
	s.Preferences = []docdex.Preference{{ID: "p1", AgentID: "agent-7", Content: "keep functions small", Category: "style"}}
	return s
}

func docdexDeps(t *testing.T, url string, extra string) *app.Deps {
	t.Helper()
	return newDeps(t, fmt.Sprintf(`{"docdex": {"url": %q, "timeoutMs": 20000%s}}`, url, extra))
}

func handle(t *testing.T, d *app.Deps, req events.Requested) (events.ContextData, *events.ContextBundle, error) {
	t.Helper()
	h, err := librarian.New(testCtx(t), d)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := h(testCtx(t), requested(t, "run-dx", req))
	if err != nil {
		return events.ContextData{}, nil, err
	}
	var data events.ContextData
	if err := events.DecodeData(outs[0], &data); err != nil {
		t.Fatal(err)
	}
	b, err := d.Artifacts.LoadBundle(testCtx(t), nil, data.BundleRef)
	if err != nil {
		t.Fatal(err)
	}
	return data, b, nil
}

func toolNames(tools []events.ToolExecution) []string {
	var out []string
	for _, t := range tools {
		if len(out) == 0 || out[len(out)-1] != t.Tool {
			out = append(out, t.Tool)
		}
	}
	return out
}

func TestPhaseOneWithDocdex(t *testing.T) {
	dir := copyHello(t)
	s := fakeHello(t, dir, docdextest.Options{RepoID: "hello", Token: "tok-1"})
	d := newDepsEnv(t, fmt.Sprintf(`{"docdex": {"url": %q, "tokenEnv": "DX_TOKEN"}}`, s.URL), map[string]string{"DX_TOKEN": "tok-1"})
	data, b, err := handle(t, d, events.Requested{Request: helloRequest, Repo: events.RepoRef{Path: dir}, Options: events.RunOptions{AgentID: "agent-7"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(data.Tools); !slices.Equal(got, phaseOne) {
		t.Fatalf("actions %v, want the Phase 1 sequence %v", got, phaseOne)
	}
	for i, tl := range data.Tools {
		if tl.Step != i+1 || tl.Gate.Stage != events.GateStagePolicy || tl.Gate.PolicyHash != d.PolicyHash || !tl.Result.OK || tl.Result.DurationMS < 0 {
			t.Errorf("call %d %+v: want a gated, successful, timed call", i+1, tl)
		}
	}
	if b.Index.Source != "docdex" || b.Index.NumDocs != 4 || b.Index.NumFiles != 4 || b.Index.LastUpdateMS == 0 || b.Index.Stale {
		t.Errorf("index %+v", b.Index)
	}
	if len(b.Snippets) == 0 || b.Snippets[0].DocID == "" || b.Snippets[0].Content == "" {
		t.Errorf("snippets %+v", b.Snippets)
	}
	if len(b.Symbols) == 0 || b.Symbols[0].Path != "greet.go" || !strings.Contains(b.Symbols[0].Summary, "func Greet(name string) string") {
		t.Errorf("symbols %+v", b.Symbols)
	}
	if len(b.AST) == 0 || len(b.AST[0].Nodes) != 2 || b.AST[0].Nodes[1].ParentID != "1" {
		t.Errorf("ast %+v", b.AST)
	}
	if len(b.Impact) == 0 || b.Impact[0].File != "greet.go" || !slices.Equal(b.Impact[0].Inbound, []string{"greet_test.go"}) {
		t.Errorf("impact %+v", b.Impact)
	}
	if len(b.ImpactDiagnostics) != 1 || b.ImpactDiagnostics[0].Diagnostics.UnresolvedImportsTotal != 1 {
		t.Errorf("impact diagnostics %+v", b.ImpactDiagnostics)
	}
	if !slices.Contains(b.Memory, events.MemoryItem{Text: "the empty name must give Hello, world!", Source: "repo"}) {
		t.Errorf("memory %+v", b.Memory)
	}
	if len(b.Profile) != 1 || b.Profile[0] != (events.ProfileItem{Content: "keep functions small", Category: "style", Source: "agent"}) {
		t.Errorf("profile %+v", b.Profile)
	}
	if len(b.Warnings) != 0 {
		t.Errorf("warnings %q", b.Warnings)
	}
	// Every spec field is present in the stored document.
	raw, _ := json.Marshal(b)
	for _, f := range []string{"request", "queries", "snippets", "symbols", "ast", "impact", "impact_diagnostics", "memory", "golden_examples", "preferences_detected", "profile", "index", "warnings"} {
		if !strings.Contains(string(raw), `"`+f+`":`) {
			t.Errorf("bundle lacks %s", f)
		}
	}
	for _, c := range s.Calls() {
		if c.Header.Get("Authorization") != "Bearer tok-1" || c.Header.Get(docdex.HeaderAgentID) != "agent-7" {
			t.Errorf("%s without token or agent header", c.Name)
		}
	}
	if !strings.Contains(data.Summary, "docdex index") {
		t.Errorf("summary %q", data.Summary)
	}
}

func newDepsEnv(t *testing.T, cfg string, env map[string]string) *app.Deps {
	t.Helper()
	return apptest.Deps(t, cfg, apptest.Options{Getenv: func(k string) string { return env[k] }})
}

func TestDocdexDown(t *testing.T) {
	dir := copyHello(t)
	s := fakeHello(t, dir, docdextest.Options{})
	s.Close()
	cases := []struct {
		name     string
		required bool
	}{{"not required: built-in index and a warning", false}, {"required: the run fails with the reason", true}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := docdexDeps(t, s.URL, fmt.Sprintf(`, "required": %v`, tc.required))
			data, b, err := handle(t, d, events.Requested{Request: helloRequest, Repo: events.RepoRef{Path: dir}})
			if tc.required {
				if !worker.IsPermanent(err) || !errors.Is(err, librarian.ErrDocdexRequired) || !strings.Contains(err.Error(), s.URL) {
					t.Fatalf("error %v, want a permanent ErrDocdexRequired naming the daemon", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b.Index.Source != "builtin" || len(b.Symbols) == 0 || len(b.Impact) == 0 || len(b.Snippets) == 0 {
				t.Errorf("built-in fallback bundle %+v", b)
			}
			if len(b.Warnings) == 0 || !strings.Contains(b.Warnings[0], "unreachable") {
				t.Errorf("warnings %q lack the unreachable daemon", b.Warnings)
			}
			if len(data.Tools) != 1 || data.Tools[0].Tool != librarian.ActHealth || data.Tools[0].Result.OK {
				t.Errorf("tools %+v: want one failed health check", data.Tools)
			}
		})
	}
}

func TestStaleIndexAsksForARebuild(t *testing.T) {
	dir := copyHello(t)
	cases := []struct {
		name  string
		opts  docdextest.Options
		fault *docdextest.Fault
		want  string
	}{
		{"stats older than staleAfterMs", docdextest.Options{LastUpdated: time.Now().Add(-48 * time.Hour)}, nil, "stale"},
		{"search answers stale_index", docdextest.Options{}, &docdextest.Fault{Match: "GET /search", Status: 409, Code: "stale_index"}, "rebuild requested"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := fakeHello(t, dir, tc.opts)
			if tc.fault != nil {
				s.Inject(*tc.fault)
			}
			d := docdexDeps(t, s.URL, "")
			data, b, err := handle(t, d, events.Requested{Request: helloRequest, Repo: events.RepoRef{Path: dir}})
			if err != nil {
				t.Fatal(err)
			}
			if s.Rebuilds() != 1 {
				t.Errorf("rebuilds %d, want 1", s.Rebuilds())
			}
			found := false
			for _, w := range b.Warnings {
				found = found || strings.Contains(w, tc.want)
			}
			if !found {
				t.Errorf("warnings %q lack %q", b.Warnings, tc.want)
			}
			if tc.fault == nil && (!b.Index.Stale || !slices.Contains(toolNames(data.Tools), librarian.ActIndex)) {
				t.Errorf("stale index not flagged or rebuild not recorded: %+v %v", b.Index, toolNames(data.Tools))
			}
		})
	}
}

func TestProtectedHitsAreNotOpened(t *testing.T) {
	dir := copyHello(t)
	writeFile(t, dir, "secrets/greet.key", "greet greet greet "+awsKey)
	s := fakeHello(t, dir, docdextest.Options{})
	d := apptest.Deps(t, fmt.Sprintf(`{"docdex": {"url": %q}}`, s.URL), apptest.Options{PolicyJSON: `{"never_touch":["secrets/**"],"commands":{"allow":[["go","test"]]}}`})
	data, b, err := handle(t, d, events.Requested{Request: "greet", Repo: events.RepoRef{Path: dir}})
	if err != nil {
		t.Fatal(err)
	}
	blocked := false
	for _, tl := range data.Tools {
		if tl.Tool == librarian.ActOpen && tl.Gate.Blocked {
			blocked = true
		}
	}
	raw, _ := json.Marshal(b)
	if !blocked || strings.Contains(string(raw), awsKey) || strings.Contains(string(raw), "secrets/greet.key\",\"bytes") {
		t.Errorf("protected hit: blocked=%v bundle %s", blocked, raw)
	}
	for _, c := range s.Calls() {
		if strings.Contains(c.Name, "/snippet/") && strings.Contains(fmt.Sprint(c.Query), "secrets") {
			t.Errorf("protected file opened: %+v", c)
		}
	}
}

func TestPreferences(t *testing.T) {
	const req = "Make Greet handle empty names. Always use table-driven tests. Never use panics."
	t.Run("through docdex_save_preference", func(t *testing.T) {
		dir := copyHello(t)
		s := fakeHello(t, dir, docdextest.Options{})
		d := docdexDeps(t, s.URL, `, "agentId": "cfg-agent"`)
		_, b, err := handle(t, d, events.Requested{Request: req, Repo: events.RepoRef{Path: dir}, Options: events.RunOptions{AgentID: "agent-9"}})
		if err != nil {
			t.Fatal(err)
		}
		want := []docdextest.SavedPreference{{AgentID: "agent-9", Content: "Always use table-driven tests", Category: "tooling"},
			{AgentID: "agent-9", Content: "Never use panics", Category: "constraint"}}
		if got := s.SavedPreferences(); !slices.Equal(got, want) {
			t.Errorf("saved %+v, want %+v", got, want)
		}
		if len(b.PreferencesDetected) != 2 {
			t.Errorf("preferences_detected %+v", b.PreferencesDetected)
		}
	})
	t.Run("without docdex: project memory, then the profile", func(t *testing.T) {
		dir := copyHello(t)
		// The project is named in the configuration for this repository:
		// a request's options.project alone is not trusted.
		d := newDeps(t, fmt.Sprintf(`{"projects": {"p": [%q]}}`, dir))
		if _, _, err := handle(t, d, events.Requested{Request: req, Repo: events.RepoRef{Path: dir}, Options: events.RunOptions{Project: "p"}}); err != nil {
			t.Fatal(err)
		}
		st, _, err := d.PM.Get(testCtx(t), "p")
		if err != nil || !slices.Contains(st.L1Memory.Entries, "preference (tooling): Always use table-driven tests") {
			t.Fatalf("L1 memory %q, %v", st.L1Memory.Entries, err)
		}
		_, b, err := handle(t, d, events.Requested{Request: "Greet", Repo: events.RepoRef{Path: dir}, Options: events.RunOptions{Project: "p"}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(b.Profile, events.ProfileItem{Content: "Never use panics", Category: "constraint", Source: "project"}) || len(b.Memory) != 0 {
			t.Errorf("profile %+v memory %+v", b.Profile, b.Memory)
		}
	})
}

func TestModelExpandsQueries(t *testing.T) {
	cases := []struct {
		name    string
		answer  string
		want    []string
		warning string
	}{
		{"valid answer", `{"queries": ["Greet", "empty name default", "Greet"]}`, []string{"Greet", "empty name default"}, ""},
		{"prose around the JSON", "Sure!\n```json\n{\"queries\": [\"func Greet\"]}\n```", []string{"func Greet"}, ""},
		{"too many queries", `{"queries": ["a", "b", "c", "d"]}`, nil, "4 queries"},
		{"wrong field", `{"query": "Greet"}`, nil, "unknown field"},
		{"not JSON", `I would search for Greet.`, nil, "no JSON object"},
		{"empty query", `{"queries": ["  "]}`, nil, "empty query"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			script, _ := json.Marshal(map[string]any{"responses": []map[string]any{{"phase": "librarian", "content": tc.answer}}})
			path := filepath.Join(t.TempDir(), "lib.json")
			if err := os.WriteFile(path, script, 0o644); err != nil {
				t.Fatal(err)
			}
			d := newDeps(t, fmt.Sprintf(`{"providers": {"small": {"type": "scripted", "script": %q}}, "routing": {"librarian": {"provider": "small", "model": "gemma2:2b"}}}`, path))
			_, b, err := handle(t, d, events.Requested{Request: helloRequest, Repo: events.RepoRef{Path: copyHello(t)}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != nil {
				if !slices.Equal(b.Queries, tc.want) {
					t.Errorf("queries %q, want %q", b.Queries, tc.want)
				}
				return
			}
			if !slices.Equal(b.Queries, []string{"Greet", "Hello, <name>!", "name empty"}) {
				t.Errorf("queries %q, want the heuristic ones", b.Queries)
			}
			if len(b.Warnings) == 0 || !strings.Contains(strings.Join(b.Warnings, ";"), tc.warning) {
				t.Errorf("warnings %q lack %q", b.Warnings, tc.warning)
			}
		})
	}
}
