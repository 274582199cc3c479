package index

import (
	"path"
	"sort"
	"strings"
)

// graph is the import graph between indexed files.
type graph struct {
	out, in    [][]int32
	unresolved [][]string
}

// buildGraph resolves each file's imports to indexed files:
//   - Go: import paths under a module declared by an indexed go.mod map to
//     the files of that package directory;
//   - Python: "from .x import" relative to the file, dotted names from the
//     root or a src/ directory (x/y.py or x/y/__init__.py);
//   - JavaScript/TypeScript: relative specifiers with the usual
//     extensions and index files;
//   - Rust: "mod x;" next to the file, "use crate::a::b" under the
//     crate's src/;
//   - Java: fully qualified names (and .* packages) by path suffix.
//
// Local-looking imports that resolve to nothing are kept as unresolved
// (the import diagnostics); third-party and standard imports are ignored.
func buildGraph(idx *Index) graph {
	n := len(idx.Files)
	g := graph{out: make([][]int32, n), in: make([][]int32, n), unresolved: make([][]string, n)}
	r := newResolver(idx)
	for i, f := range idx.Files {
		seen := map[int32]bool{}
		for _, imp := range f.Imports {
			targets, local := r.resolve(f, imp)
			if len(targets) == 0 {
				if local {
					g.unresolved[i] = append(g.unresolved[i], imp)
				}
				continue
			}
			for _, t := range targets {
				if t == int32(i) || seen[t] {
					continue
				}
				seen[t] = true
				g.out[i] = append(g.out[i], t)
				g.in[t] = append(g.in[t], int32(i))
			}
		}
	}
	return g
}

type resolver struct {
	idx     *Index
	modules map[string]string  // Go module path -> directory ("" for the root)
	dirs    map[string][]int32 // directory -> files
	suffix  map[string][]int32 // Java: path suffix -> files
}

func newResolver(idx *Index) *resolver {
	r := &resolver{idx: idx, modules: map[string]string{}, dirs: map[string][]int32{}, suffix: map[string][]int32{}}
	for i, f := range idx.Files {
		dir := path.Dir(f.Path)
		r.dirs[dir] = append(r.dirs[dir], int32(i))
		if path.Base(f.Path) == "go.mod" {
			for _, l := range strings.Split(string(f.content), "\n") {
				if fs := strings.Fields(l); len(fs) == 2 && fs[0] == "module" {
					r.modules[strings.Trim(fs[1], `"`)] = dir
					break
				}
			}
		}
		if f.Lang == "java" {
			parts := strings.Split(f.Path, "/")
			for k := len(parts) - 1; k >= 0; k-- {
				key := strings.Join(parts[k:], "/")
				r.suffix[key] = append(r.suffix[key], int32(i))
			}
		}
	}
	return r
}

func (r *resolver) file(p string) []int32 {
	if i, ok := r.idx.byPath[path.Clean(p)]; ok {
		return []int32{int32(i)}
	}
	return nil
}

func (r *resolver) first(cands ...string) []int32 {
	for _, c := range cands {
		if strings.HasPrefix(c, "../") || c == ".." {
			continue
		}
		if t := r.file(c); t != nil {
			return t
		}
	}
	return nil
}

// resolve returns the files an import refers to, and whether the import
// looks local (so that not resolving it is worth reporting).
func (r *resolver) resolve(f File, imp string) ([]int32, bool) {
	dir := path.Dir(f.Path)
	switch f.Lang {
	case "go":
		for mod, mdir := range r.modules {
			if imp == mod || strings.HasPrefix(imp, mod+"/") {
				d := path.Join(mdir, strings.TrimPrefix(strings.TrimPrefix(imp, mod), "/"))
				var out []int32
				for _, t := range r.dirs[d] {
					if r.idx.Files[t].Lang == "go" && !strings.HasSuffix(r.idx.Files[t].Path, "_test.go") {
						out = append(out, t)
					}
				}
				return out, true
			}
		}
		return nil, false
	case "python":
		if strings.HasPrefix(imp, ".") {
			up := len(imp) - len(strings.TrimLeft(imp, "."))
			base := dir
			for k := 1; k < up; k++ {
				base = path.Dir(base)
			}
			rel := strings.ReplaceAll(strings.TrimLeft(imp, "."), ".", "/")
			p := path.Join(base, rel)
			if rel == "" {
				return r.first(path.Join(base, "__init__.py")), true
			}
			return r.first(p+".py", path.Join(p, "__init__.py")), true
		}
		rel := strings.ReplaceAll(imp, ".", "/")
		return r.first(rel+".py", path.Join(rel, "__init__.py"), path.Join("src", rel)+".py", path.Join("src", rel, "__init__.py"),
			path.Join(dir, rel)+".py"), false
	case "javascript", "typescript":
		if !strings.HasPrefix(imp, "./") && !strings.HasPrefix(imp, "../") {
			return nil, false
		}
		p := path.Join(dir, imp)
		var cands []string
		for _, ext := range []string{"", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", "/index.ts", "/index.tsx", "/index.js", "/index.jsx"} {
			cands = append(cands, p+ext)
		}
		// "./x.js" written in TypeScript sources refers to x.ts.
		if ext := path.Ext(p); ext == ".js" || ext == ".jsx" {
			cands = append(cands, strings.TrimSuffix(p, ext)+".ts", strings.TrimSuffix(p, ext)+".tsx")
		}
		return r.first(cands...), true
	case "rust":
		if !strings.Contains(imp, "::") { // mod x;
			base := dir
			if stem := strings.TrimSuffix(path.Base(f.Path), ".rs"); stem != "mod" && stem != "lib" && stem != "main" {
				base = path.Join(dir, stem)
			}
			return r.first(path.Join(base, imp+".rs"), path.Join(base, imp, "mod.rs")), true
		}
		parts := strings.Split(imp, "::")
		if parts[0] != "crate" {
			return nil, false
		}
		src := dir
		for src != "." && path.Base(src) != "src" {
			src = path.Dir(src)
		}
		if path.Base(src) != "src" {
			src = "src"
		}
		for k := len(parts); k > 1; k-- {
			p := path.Join(append([]string{src}, parts[1:k]...)...)
			if t := r.first(p+".rs", path.Join(p, "mod.rs")); t != nil {
				return t, true
			}
		}
		return nil, true
	case "java":
		p := strings.ReplaceAll(imp, ".", "/")
		if strings.HasSuffix(p, "/*") {
			d := strings.TrimSuffix(p, "/*")
			var out []int32
			for dd, files := range r.dirs {
				if dd == d || strings.HasSuffix(dd, "/"+d) {
					out = append(out, files...)
				}
			}
			sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
			return out, false
		}
		return r.suffix[p+".java"], false
	}
	return nil, false
}

// Edge is one import edge: Source imports Target.
type Edge struct {
	Source string `json:"source"`
	Target string `json:"target"`
}

// Impact is a file's place in the import graph.
type Impact struct {
	File string `json:"file"`
	// Inbound are files that import the file (directly or, up to the
	// depth, transitively): what a change may break.
	Inbound []string `json:"inbound"`
	// Outbound are files the file imports (up to the depth).
	Outbound []string `json:"outbound"`
	// Edges are the edges walked, at most the edge limit.
	Edges []Edge `json:"edges"`
	// Truncated reports that the edge limit cut the walk short.
	Truncated bool `json:"truncated"`
	// Unresolved are the file's local-looking imports that match no
	// indexed file (dynamic imports, generated code, missing files).
	Unresolved []string `json:"unresolved,omitempty"`
}

// Impact walks the import graph from a file, maxDepth levels in each
// direction and at most maxEdges edges. ok is false for an unknown file.
func (idx *Index) Impact(file string, maxDepth, maxEdges int) (Impact, bool) {
	start, ok := idx.byPath[file]
	if !ok {
		return Impact{}, false
	}
	res := Impact{File: file, Inbound: []string{}, Outbound: []string{}, Edges: []Edge{}, Unresolved: idx.graph.unresolved[start]}
	walk := func(next [][]int32, add func(from, to int32)) []string {
		seen := map[int32]bool{int32(start): true}
		frontier := []int32{int32(start)}
		var found []string
		for d := 0; d < maxDepth && len(frontier) > 0; d++ {
			var nf []int32
			for _, u := range frontier {
				for _, v := range next[u] {
					if len(res.Edges) >= maxEdges {
						res.Truncated = true
						return found
					}
					add(u, v)
					if !seen[v] {
						seen[v] = true
						nf = append(nf, v)
						found = append(found, idx.Files[v].Path)
					}
				}
			}
			frontier = nf
		}
		return found
	}
	name := func(i int32) string { return idx.Files[i].Path }
	res.Outbound = append(res.Outbound, walk(idx.graph.out, func(u, v int32) { res.Edges = append(res.Edges, Edge{name(u), name(v)}) })...)
	res.Inbound = append(res.Inbound, walk(idx.graph.in, func(u, v int32) { res.Edges = append(res.Edges, Edge{name(v), name(u)}) })...)
	return res, true
}
