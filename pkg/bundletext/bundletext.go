// Package bundletext renders a context bundle for model prompts, structure
// before raw code (codali-cognitive-architecture §4: cheap models do
// better with symbols and AST summaries than with long code): the
// likely-to-change files' symbols (signatures and doc comments), their
// syntax outlines, their place in the import graph, unresolved imports,
// preferences, then snippets, all within a token budget.
package bundletext

import (
	"fmt"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
)

// BytesPerToken is the estimate used to turn a token budget into bytes.
const BytesPerToken = 4

// maxOutlineNodes bounds the outline lines shown per file.
const maxOutlineNodes = 60

// Render returns the bundle's structure and snippets as prompt text of at
// most budgetTokens estimated tokens. Sections are added in order —
// symbols, outlines, impact, import diagnostics, preferences, snippets —
// and a section that does not fit is cut at a line boundary with a note;
// later sections are left out. A nil bundle renders as "".
func Render(b *events.ContextBundle, budgetTokens int) string {
	if b == nil {
		return ""
	}
	w := &writer{left: budgetTokens * BytesPerToken}
	if len(b.Symbols) > 0 {
		w.section("Symbols of the files likely to change (signature // doc):")
		for _, f := range b.Symbols {
			w.line("-- " + f.Path)
			for _, l := range strings.Split(f.Summary, "\n") {
				if l != "" {
					w.line("   " + l)
				}
			}
		}
	}
	if len(b.AST) > 0 {
		w.section("Syntax outline:")
		for _, f := range b.AST {
			w.line("-- " + f.Path)
			depth := map[string]int{}
			for i, n := range f.Nodes {
				if i == maxOutlineNodes {
					w.line(fmt.Sprintf("   … %d more nodes", len(f.Nodes)-i))
					break
				}
				d := 0
				if n.ParentID != "" {
					d = depth[n.ParentID] + 1
				}
				depth[n.ID] = d
				lines := ""
				if n.Line > 0 {
					lines = fmt.Sprintf(" (lines %d-%d)", n.Line, n.EndLine)
				}
				w.line(strings.Repeat("  ", d+1) + strings.TrimSpace(n.Kind+" "+n.Name) + lines)
			}
		}
	}
	if len(b.Impact) > 0 {
		w.section("Dependencies (a change may break the files that import it):")
		for _, im := range b.Impact {
			w.line(fmt.Sprintf("- %s: imported by [%s]; imports [%s]", im.File, strings.Join(im.Inbound, ", "), strings.Join(im.Outbound, ", ")))
		}
	}
	if len(b.ImpactDiagnostics) > 0 {
		w.section("Imports the index could not resolve (dynamic or missing):")
		for _, d := range b.ImpactDiagnostics {
			w.line(fmt.Sprintf("- %s: %d (%s)", d.File, d.Diagnostics.UnresolvedImportsTotal, strings.Join(d.Diagnostics.UnresolvedImportsSample, ", ")))
		}
	}
	if len(b.Profile)+len(b.PreferencesDetected) > 0 {
		w.section("Preferences to respect:")
		for _, p := range b.PreferencesDetected {
			w.line(fmt.Sprintf("- (%s) %s", p.Category, p.Content))
		}
		for _, p := range b.Profile {
			w.line(fmt.Sprintf("- (%s) %s", p.Category, p.Content))
		}
	}
	for _, sn := range b.Snippets {
		w.section(fmt.Sprintf("--- %s lines %d-%d ---", sn.Path, sn.LineStart, sn.LineEnd))
		for _, l := range strings.SplitAfter(sn.Content, "\n") {
			if l != "" {
				w.line(strings.TrimSuffix(l, "\n"))
			}
		}
	}
	return w.String()
}

// writer appends lines while the budget lasts.
type writer struct {
	strings.Builder
	left int
	full bool
}

func (w *writer) section(title string) { w.line("\n" + title) }

func (w *writer) line(s string) {
	if w.full {
		return
	}
	if len(s)+1 > w.left {
		w.full = true
		w.WriteString("\n[context cut to fit the prompt budget]\n")
		return
	}
	w.WriteString(s + "\n")
	w.left -= len(s) + 1
}
