package index

import (
	"path"
	"sort"
	"strings"
)

// Symbol is one declaration of a file.
type Symbol struct {
	// Name is the declared name.
	Name string `json:"name"`
	// Kind is function, method, type, struct, interface, class, enum,
	// trait, impl, module, const, var or field.
	Kind string `json:"kind"`
	// Signature is the declaration without its body, on one line.
	Signature string `json:"signature,omitempty"`
	// Doc is the first paragraph of the doc comment, on one line.
	Doc string `json:"doc,omitempty"`
	// Parent is the enclosing type or class (a method's receiver).
	Parent string `json:"parent,omitempty"`
	// Line and EndLine are the 1-based lines of the declaration.
	Line    int `json:"line"`
	EndLine int `json:"end_line"`
}

// Node is one node of a file's syntax outline. IDs start at 1; Parent 0
// is the root.
type Node struct {
	ID      int    `json:"id"`
	Parent  int    `json:"parent_id,omitempty"`
	Kind    string `json:"kind"`
	Name    string `json:"name,omitempty"`
	Line    int    `json:"line"`
	EndLine int    `json:"end_line"`
}

// Languages the extractors recognise, by file extension.
var langByExt = map[string]string{
	".go": "go", ".py": "python", ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
	".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript", ".rs": "rust", ".java": "java",
}

// Lang returns the language of a path by extension, or "".
func Lang(p string) string { return langByExt[strings.ToLower(path.Ext(p))] }

// extract fills a file's language, symbols, outline and imports.
//
// Go is parsed with go/parser: exact symbols, signatures printed from the
// syntax tree, doc comments, a syntax outline, and the import list.
//
// Python, JavaScript/TypeScript, Rust and Java use a documented line-based
// extractor (see lines.go): declarations are recognised by per-language
// regular expressions at the start of a line; a declaration's signature is
// its first line without the body; its doc comment is the comment block
// right above it (Python: the docstring's first line); its end is found by
// brace matching (Python: by indentation). It does not understand macros,
// multi-line declarations beyond the first line, or code inside strings;
// the outline is the symbols nested by their line ranges.
func extract(f *File) {
	f.Lang = Lang(f.Path)
	if f.content == nil || f.Lang == "" {
		return
	}
	if f.Lang == "go" {
		extractGo(f)
		return
	}
	extractLines(f)
	f.Outline = outlineFromSymbols(f.Symbols)
}

// outlineFromSymbols nests symbols by their line ranges under a file node.
func outlineFromSymbols(syms []Symbol) []Node {
	nodes := []Node{{ID: 1, Kind: "file"}}
	type open struct {
		id, end int
	}
	var stack []open
	ordered := append([]Symbol(nil), syms...)
	sort.SliceStable(ordered, func(i, j int) bool { return ordered[i].Line < ordered[j].Line })
	maxEnd := 0
	for _, s := range ordered {
		for len(stack) > 0 && stack[len(stack)-1].end < s.Line {
			stack = stack[:len(stack)-1]
		}
		parent := 1
		if len(stack) > 0 {
			parent = stack[len(stack)-1].id
		}
		id := len(nodes) + 1
		nodes = append(nodes, Node{ID: id, Parent: parent, Kind: s.Kind, Name: s.Name, Line: s.Line, EndLine: s.EndLine})
		stack = append(stack, open{id, s.EndLine})
		maxEnd = max(maxEnd, s.EndLine)
	}
	nodes[0].Line, nodes[0].EndLine = 1, maxEnd
	return nodes
}

// firstSentence shortens a doc comment to its first paragraph, one line.
func firstSentence(doc string) string {
	doc = strings.TrimSpace(doc)
	if i := strings.Index(doc, "\n\n"); i >= 0 {
		doc = doc[:i]
	}
	doc = strings.Join(strings.Fields(doc), " ")
	if len(doc) > 200 {
		doc = doc[:200] + "…"
	}
	return doc
}

// Extract indexes one file's content on its own: language, symbols,
// outline and imports (what Scan does per file), for a file that changed
// since the index was built.
func Extract(path string, content []byte) File {
	f := File{Path: path, Size: int64(len(content)), content: content}
	extract(&f)
	return f
}
