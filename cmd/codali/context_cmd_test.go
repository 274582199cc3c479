package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/docdex"
	"github.com/codali-dev/codali/pkg/docdex/docdextest"
	"github.com/codali-dev/codali/pkg/events"
)

func TestContextCommand(t *testing.T) {
	repo := apptest.CopyHello(t)
	const request = `Make Greet return "Hello, <name>!", and "Hello, world!" when the name is empty.`
	builtin := writeConfig(t, fmt.Sprintf(`{"librarian": {"indexCacheDir": %q}}`, t.TempDir()))
	dx := docdextest.New(t, docdextest.Options{Root: repo})
	if err := dx.LoadDir(repo); err != nil {
		t.Fatal(err)
	}
	dx.Symbols["greet.go"] = []docdex.Symbol{{Name: "Greet", Kind: "function", Signature: "func Greet(name string) string"}}
	withDocdex := writeConfig(t, fmt.Sprintf(`{"librarian": {"indexCacheDir": "off"}, "docdex": {"url": %q}}`, dx.URL))
	down := docdextest.New(t, docdextest.Options{})
	down.Close()
	required := writeConfig(t, fmt.Sprintf(`{"librarian": {"indexCacheDir": "off"}, "docdex": {"url": %q, "required": true}}`, down.URL))

	cases := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"built-in, text", []string{"context", "--config", builtin, "--repo", repo, request}, exitOK,
			[]string{"index: builtin, 4 files", "func Greet(name string) string // Greet returns a greeting for name.", "=== what the architect and builder are shown"}},
		{"docdex, text lists the calls", []string{"context", "--config", withDocdex, "--repo", repo, request}, exitOK,
			[]string{"index: docdex", "docdex_health", "docdex_impact_graph", "func Greet(name string) string"}},
		{"docdex required and down", []string{"context", "--config", required, "--repo", repo, request}, exitFailure,
			[]string{"docdex is required but unavailable", down.URL}},
		{"no repo", []string{"context", request}, exitUsage, []string{"--repo and a request are required"}},
		{"no request", []string{"context", "--repo", repo}, exitUsage, []string{"--repo and a request are required"}},
		{"repo is not a directory", []string{"context", "--repo", filepath.Join(repo, "greet.go"), "x"}, exitUsage, []string{"not a directory"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runBare(t, "", tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s %s", code, tc.code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out+errOut, w) {
					t.Errorf("output lacks %q:\n%s%s", w, out, errOut)
				}
			}
		})
	}
	code, out, errOut := runBare(t, "", "context", "--json", "--config", builtin, "--repo", repo, request)
	var b events.ContextBundle
	if code != exitOK || json.Unmarshal([]byte(out), &b) != nil {
		t.Fatalf("--json: exit %d %s %s", code, out, errOut)
	}
	if b.Request != request || len(b.Symbols) == 0 || b.Symbols[0].Path != "greet.go" || len(b.Impact) == 0 || b.Index.Source != "builtin" {
		t.Errorf("bundle %+v", b)
	}
}
