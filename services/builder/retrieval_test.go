package builder

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/docdex"
	"github.com/codali-dev/codali/pkg/docdex/docdextest"
	"github.com/codali-dev/codali/pkg/index"
)

func TestRetrievalToolsBuiltin(t *testing.T) {
	x, dir := newExecutor(t)
	var long strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&long, "// line %d\n", i)
	}
	long.WriteString("\n// Greet says hello.\nfunc Greet(name string) string { return name }\n")
	if err := os.WriteFile(filepath.Join(dir, "greet.go"), []byte("package main\n"+long.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "pkg", "deep", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, tool, args string
		want             []string
		not              []string
		blocked          bool
		failed           bool
	}{
		{"ranked search", ToolSearch, `{"query":"Greet name"}`, []string{"greet.go:"}, []string{"secrets/key.pem"}, false, false},
		{"literal search", ToolSearch, `{"query":"func main","literal":true}`, []string{"main.go:3: func main() {}"}, nil, false, false},
		{"open around a line is narrow", ToolOpen, `{"path":"greet.go","line":303}`, []string{"lines 283-304 of 304", "303\t// Greet says hello."}, []string{"282\t"}, false, false},
		{"open a range is capped at 80 lines", ToolOpen, `{"path":"greet.go","start_line":10,"end_line":500}`, []string{"lines 10-89 of 304", "89\t// line 88"}, []string{"90\t"}, false, false},
		{"open without a range", ToolOpen, `{"path":"greet.go"}`, []string{"lines 1-80 of 304"}, nil, false, false},
		{"open past the end", ToolOpen, `{"path":"greet.go","start_line":900}`, []string{"past the end"}, nil, false, true},
		{"symbols", ToolSymbols, `{"path":"greet.go"}`, []string{"304-304 function Greet: func Greet(name string) string // Greet says hello."}, nil, false, false},
		{"symbols of an unknown language", ToolSymbols, `{"path":"dup.txt"}`, []string{"no symbol extractor"}, nil, false, true},
		{"tree", ToolTree, `{}`, []string{"greet.go", "pkg/", "  deep/"}, []string{"key.pem", ".git", "deeper/"}, false, false},
		{"tree dirs only, deeper", ToolTree, `{"path":"pkg","max_depth":3,"dirs_only":true}`, []string{"deep/", "  deeper/"}, nil, false, false},
		{"open a protected file is blocked", ToolOpen, `{"path":"secrets/key.pem"}`, []string{"blocked by policy"}, nil, true, true},
		{"symbols of a protected file is blocked", ToolSymbols, `{"path":"secrets/key.pem"}`, []string{"blocked by policy"}, nil, true, true},
		{"tree outside the workspace is blocked", ToolTree, `{"path":"../"}`, []string{"escapes"}, nil, true, true},
		{"bad arguments", ToolOpen, `{"path":"greet.go","window":3}`, []string{"bad arguments"}, nil, false, true},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, out := x.execute(context.Background(), i+1, tc.tool, json.RawMessage(tc.args))
			if rec.Gate.Blocked != tc.blocked || rec.Result.OK == tc.failed {
				t.Fatalf("gate %+v result %+v: %s", rec.Gate, rec.Result, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out, n) {
					t.Errorf("output has %q:\n%s", n, out)
				}
			}
		})
	}
}

func TestRetrievalToolsDocdex(t *testing.T) {
	x, dir := newExecutor(t)
	s := docdextest.New(t, docdextest.Options{Root: dir})
	if err := s.LoadDir(dir); err != nil {
		t.Fatal(err)
	}
	s.Files["secrets/key.pem"] = "main main main"
	c, err := docdex.New(docdex.Options{URL: s.URL, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	x.retrieval = &retrieval{docdex: c, indexes: index.NewCache(""), limits: index.Limits{MaxFiles: 100, MaxFileBytes: 1 << 20}}
	_, out := x.execute(context.Background(), 1, ToolSearch, json.RawMessage(`{"query":"main"}`))
	if !strings.Contains(out, "docdex results") || !strings.Contains(out, "main.go:") || strings.Contains(out, "secrets") {
		t.Errorf("docdex search output:\n%s", out)
	}
	_, out = x.execute(context.Background(), 2, ToolTree, json.RawMessage(`{}`))
	if !strings.Contains(out, "main.go") || strings.Contains(out, "key.pem") {
		t.Errorf("docdex tree output:\n%s", out)
	}
	names := strings.Join(s.Names(), ",")
	if !strings.Contains(names, "GET /search") || !strings.Contains(names, "tool:docdex_tree") {
		t.Errorf("daemon calls %s", names)
	}
	// A failing daemon falls back to the built-in index.
	s.Close()
	rec, out := x.execute(context.Background(), 3, ToolSearch, json.RawMessage(`{"query":"main"}`))
	if !rec.Result.OK || !strings.Contains(out, "docdex search failed") || !strings.Contains(out, "main.go:") {
		t.Errorf("fallback search %+v:\n%s", rec.Result, out)
	}
}
