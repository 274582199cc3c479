package index_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/index"
)

// genRepo writes a repository of n source files (Go, Python, TypeScript,
// Rust and Java in turn, about 60 lines each, importing one another).
func genRepo(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/gen\n\ngo 1.22\n"), 0o644))
	body := strings.Repeat("\t// lorem ipsum dolor sit amet, consectetur adipiscing elit\n\tx := compute(1, 2)\n\t_ = x\n", 15)
	for i := 0; i < n; i++ {
		pkg := fmt.Sprintf("pkg%03d", i/50)
		var rel, src string
		switch i % 5 {
		case 0:
			rel = fmt.Sprintf("%s/file%d.go", pkg, i)
			src = fmt.Sprintf("package %s\n\nimport \"example.com/gen/pkg%03d\"\n\n// Handler%d handles request kind %d.\nfunc Handler%d(w Writer, r *Request) error {\n%s\treturn nil\n}\n\ntype Service%d struct{ Name string }\n",
				pkg, (i/50+1)%100, i, i, i, body, i)
		case 1:
			rel = fmt.Sprintf("%s/mod%d.py", pkg, i)
			src = fmt.Sprintf("from .mod%d import helper\n\nclass Model%d:\n    \"\"\"Model %d.\"\"\"\n    def save(self):\n%s\n\ndef load_%d(x):\n    return x\n", i-1, i, i, strings.Repeat("        pass  # lorem ipsum dolor\n", 40), i)
		case 2:
			rel = fmt.Sprintf("%s/comp%d.ts", pkg, i)
			src = fmt.Sprintf("import { x } from './comp%d';\n\n/** Widget %d. */\nexport function widget%d(a: number): number {\n%s  return a;\n}\n", i-2, i, i, strings.Repeat("  const y = a * 2; // lorem ipsum\n", 40))
		case 3:
			rel = fmt.Sprintf("%s/src/lib%d.rs", pkg, i)
			src = fmt.Sprintf("use crate::util::Thing;\n\n/// Parser %d.\npub fn parse_%d(input: &str) -> usize {\n%s    0\n}\n", i, i, strings.Repeat("    let n = input.len(); // lorem ipsum\n", 40))
		default:
			rel = fmt.Sprintf("%s/com/gen/Type%d.java", pkg, i)
			src = fmt.Sprintf("package com.gen;\n\nimport com.gen.Type%d;\n\n/** Type %d. */\npublic class Type%d {\n    public int run(int a) {\n%s        return a;\n    }\n}\n", i-1, i, i, strings.Repeat("        a += 1; // lorem ipsum\n", 40))
		}
		p := filepath.Join(dir, rel)
		must(os.MkdirAll(filepath.Dir(p), 0o755))
		must(os.WriteFile(p, []byte(src), 0o644))
	}
	return dir
}

var benchLimits = index.Limits{MaxFiles: 10000, MaxFileBytes: 256 << 10}

// BenchmarkIndexCold5000 indexes a generated 5,000-file repository from
// scratch (target: 10 s on a 2-core machine).
func BenchmarkIndexCold5000(b *testing.B) {
	dir := genRepo(b, 5000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		idx, err := index.NewCache("").Load(context.Background(), dir, benchLimits, "")
		if err != nil || len(idx.Files) != 5001 {
			b.Fatalf("%v %d", err, len(idx.Files))
		}
	}
}

// BenchmarkIndexWarmLoad5000 is a second process's load: the repository
// state is hashed and the index read from the disk cache.
func BenchmarkIndexWarmLoad5000(b *testing.B) {
	dir := genRepo(b, 5000)
	cacheDir := b.TempDir()
	if _, err := index.NewCache(cacheDir).Load(context.Background(), dir, benchLimits, ""); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		idx, err := index.NewCache(cacheDir).Load(context.Background(), dir, benchLimits, "")
		if err != nil || !idx.Cached {
			b.Fatalf("%v cached=%v", err, idx != nil && idx.Cached)
		}
	}
}

// BenchmarkCachedQuery5000 is one librarian query on a cached index of
// 5,000 files: three focused queries, symbols and impact of the top hit
// (target: 50 ms).
func BenchmarkCachedQuery5000(b *testing.B) {
	dir := genRepo(b, 5000)
	idx, err := index.NewCache("").Load(context.Background(), dir, benchLimits, "")
	if err != nil {
		b.Fatal(err)
	}
	queries := index.FocusedQueries(`Make Handler2500 return an error when "request kind" is unknown; see Service2500`, 3)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		hits := idx.Search(queries, 8, 40)
		if len(hits) == 0 {
			b.Fatal("no hits")
		}
		f, _ := idx.File(hits[0].Path)
		_ = f.Symbols
		if _, ok := idx.Impact(hits[0].Path, 3, 200); !ok {
			b.Fatal("no impact")
		}
	}
}
