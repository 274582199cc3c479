package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/codali-dev/codali/examples"
	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/docdex"
	"github.com/codali-dev/codali/pkg/docdex/docdextest"
	"github.com/codali-dev/codali/pkg/events"
)

// phaseOneActions is the spec's mandatory Phase 1 sequence as recorded
// (consecutive repeats folded).
var phaseOneActions = []string{"docdex_health", "docdex_initialize", "docdex_stats", "docdex_files", "docdex_search", "docdex_open",
	"docdex_symbols", "docdex_ast", "docdex_impact_graph", "docdex_memory_recall", "docdex_get_profile", "docdex_impact_diagnostics"}

// replayed is what these tests read of `rao replay --json`.
type replayed struct {
	Events []struct {
		Kind    string `json:"kind"`
		Summary string `json:"summary"`
	} `json:"events"`
	State struct {
		Status  string `json:"status"`
		Context struct {
			BundleRef *events.ArtifactRef    `json:"bundle_ref"`
			ToolCalls []events.ToolExecution `json:"tool_calls"`
		} `json:"context"`
	} `json:"state"`
}

// submitAndReplay submits the example request, waits for its verdict and
// returns the verdict, the replayed history and the stored bundle.
func submitAndReplay(t *testing.T, p *pipeline, wantCode int) (events.VerdictData, replayed, *events.ContextBundle) {
	t.Helper()
	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "--wait", "--json", "--timeout", "5m", examples.HelloRequest)
	if code != wantCode {
		t.Fatalf("submit exited %d, want %d\nstdout:\n%s\nstderr:\n%s\nservices:\n%s", code, wantCode, out, errOut, p.log.String())
	}
	env, v := decodeTerminal(t, out)
	runID := env.RunID()
	var r replayed
	eventually(t, "recorder to record the verdict", func() bool {
		code, out, _ := p.run(t, "rao", "replay", runID, "--json")
		if code != exitOK || json.Unmarshal([]byte(out), &r) != nil {
			return false
		}
		return r.State.Status == v.Status
	})
	if r.State.Context.BundleRef == nil {
		return v, r, nil
	}
	_, js := p.js(t)
	store, err := artifacts.Open(context.Background(), js)
	if err != nil {
		t.Fatal(err)
	}
	b, err := store.LoadBundle(context.Background(), nil, r.State.Context.BundleRef)
	if err != nil {
		t.Fatal(err)
	}
	return v, r, b
}

func fakeDaemon(t *testing.T) *docdextest.Server {
	t.Helper()
	s := docdextest.New(t, docdextest.Options{Root: helloRepo(t), RepoID: "hello"})
	if err := s.LoadDir(helloRepo(t)); err != nil {
		t.Fatal(err)
	}
	s.Symbols["greet.go"] = []docdex.Symbol{{SymbolID: "greet.go#Greet", Name: "Greet", Kind: "function",
		Range: docdex.Range{StartLine: 5, EndLine: 7}, Signature: "func Greet(name string) string"}}
	s.AST["greet.go"] = []docdex.ASTNode{{ID: 1, Kind: "source_file"}, {ID: 2, ParentID: 1, Kind: "function_declaration", Name: "Greet"}}
	s.Inbound["greet.go"] = []string{"greet_test.go"}
	s.Diagnostics = []docdex.FileDiagnostics{{File: "greet_test.go"}}
	return s
}

func TestExampleWithDocdex(t *testing.T) {
	s := fakeDaemon(t)
	// The example repository with the quick scripted model (fastConfig: a
	// failed attempt, then a pass), so the package stays fast; the Phase 1
	// sequence does not depend on the model.
	p := startUp(t, withDocdex(t, fastConfig(t), fmt.Sprintf(`{"url": %q}`, s.URL)))
	v, r, b := submitAndReplay(t, p, exitOK)
	if v.Status != events.StatusPassed || v.Attempts != 2 {
		t.Fatalf("verdict %+v", v)
	}
	var calls []string
	for _, c := range r.State.Context.ToolCalls {
		if len(calls) == 0 || calls[len(calls)-1] != c.Tool {
			calls = append(calls, c.Tool)
		}
	}
	if !slices.Equal(calls, phaseOneActions) {
		t.Fatalf("recorded Phase 1 calls %v, want %v", calls, phaseOneActions)
	}
	// The history has one audit event per call, in order, with its duration.
	gate := regexp.MustCompile(`^gate \(librarian, step (\d+)\): (docdex_\w+) allowed, ok in \d+ ms$`)
	var audited []string
	for _, e := range r.Events {
		if m := gate.FindStringSubmatch(e.Summary); m != nil && e.Kind == "audit" {
			if len(audited) == 0 || audited[len(audited)-1] != m[2] {
				audited = append(audited, m[2])
			}
		}
	}
	if !slices.Equal(audited, phaseOneActions) {
		t.Fatalf("history's librarian audit events %v, want %v", audited, phaseOneActions)
	}
	if b == nil || b.Index.Source != "docdex" || len(b.Symbols) == 0 || b.Symbols[0].Path != "greet.go" ||
		len(b.Impact) == 0 || !slices.Equal(b.Impact[0].Inbound, []string{"greet_test.go"}) || len(b.Snippets) == 0 || b.Snippets[0].DocID == "" {
		t.Fatalf("bundle %+v", b)
	}
}

func TestExampleWithDocdexDown(t *testing.T) {
	s := fakeDaemon(t)
	s.Close()
	t.Run("not required: passes with a warning", func(t *testing.T) {
		// The quick scripted run (fastConfig): this case is about the bundle.
		p := startUp(t, withDocdex(t, fastConfig(t), fmt.Sprintf(`{"url": %q}`, s.URL)))
		v, _, b := submitAndReplay(t, p, exitOK)
		if v.Status != events.StatusPassed {
			t.Fatalf("verdict %+v", v)
		}
		if b == nil || b.Index.Source != "builtin" || len(b.Symbols) == 0 || len(b.Impact) == 0 ||
			len(b.Warnings) == 0 || !strings.Contains(b.Warnings[0], "unreachable") {
			t.Fatalf("bundle %+v", b)
		}
	})
	t.Run("required: fails with the reason", func(t *testing.T) {
		p := startUp(t, withDocdex(t, fastConfig(t), fmt.Sprintf(`{"url": %q, "required": true}`, s.URL)))
		v, _, _ := submitAndReplay(t, p, exitFailure)
		if v.Status != events.StatusFailed || v.Phase != events.ServiceLibrarian ||
			!strings.Contains(v.Reason, "docdex is required but unavailable") || !strings.Contains(v.Reason, s.URL) {
			t.Fatalf("verdict %+v", v)
		}
	})
}

// withDocdex adds a docdex section to a configuration file.
func withDocdex(t *testing.T, path, section string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["docdex"] = json.RawMessage(section)
	out, _ := json.Marshal(cfg)
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
