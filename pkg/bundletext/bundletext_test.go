package bundletext_test

import (
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/bundletext"
	"github.com/codali-dev/codali/pkg/events"
)

var bundle = &events.ContextBundle{
	Symbols: []events.FileSymbols{{Path: "greet.go", Summary: "func Greet(name string) string // Greet returns a greeting."}},
	AST: []events.FileAST{{Path: "greet.go", Nodes: []events.ASTNode{{ID: "1", Kind: "file", Name: "hello"},
		{ID: "2", ParentID: "1", Kind: "function", Name: "Greet", Line: 5, EndLine: 7}}}},
	Impact:            []events.FileImpact{{File: "greet.go", Inbound: []string{"main.go"}, Outbound: []string{}}},
	ImpactDiagnostics: []events.FileImpactDiagnostics{{File: "main.go", Diagnostics: events.ImportDiagnostics{UnresolvedImportsTotal: 1, UnresolvedImportsSample: []string{"./plugins"}}}},
	Profile:           []events.ProfileItem{{Content: "keep functions small", Category: "style", Source: "agent"}},
	Snippets:          []events.Snippet{{Path: "greet.go", LineStart: 1, LineEnd: 3, Content: "package hello\n\nfunc Greet() {}\n"}},
}

func TestStructureComesBeforeCode(t *testing.T) {
	out := bundletext.Render(bundle, 1000)
	order := []string{"func Greet(name string) string // Greet returns a greeting.", "    function Greet (lines 5-7)",
		"- greet.go: imported by [main.go]", "- main.go: 1 (./plugins)", "- (style) keep functions small", "--- greet.go lines 1-3 ---", "func Greet() {}"}
	at := -1
	for _, s := range order {
		i := strings.Index(out, s)
		if i < 0 || i < at {
			t.Fatalf("%q missing or out of order in:\n%s", s, out)
		}
		at = i
	}
	if strings.Contains(out, "cut to fit") {
		t.Error("a small bundle was cut")
	}
}

func TestBudgetCutsCodeFirst(t *testing.T) {
	out := bundletext.Render(bundle, 60) // 240 bytes: structure fits, code does not
	if !strings.Contains(out, "func Greet(name string) string") || strings.Contains(out, "package hello") || !strings.Contains(out, "cut to fit the prompt budget") {
		t.Errorf("render within 60 tokens:\n%s", out)
	}
	if len(out) > 60*bundletext.BytesPerToken+64 {
		t.Errorf("render of %d bytes exceeds the budget", len(out))
	}
	if bundletext.Render(nil, 10) != "" {
		t.Error("nil bundle")
	}
}
