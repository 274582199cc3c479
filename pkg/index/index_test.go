package index_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/index"
)

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestScanAndSearch(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "greet.go", "package hello\n\n// Greet says hello.\nfunc Greet(name string) string { return \"\" }\n")
	write(t, dir, "greet_test.go", "package hello\nfunc TestGreet() { Greet(\"Ada\") }\n")
	write(t, dir, "other.go", "package hello\nvar x = 1\n")
	write(t, dir, "bin.dat", "a\x00b")
	write(t, dir, ".git/config", "greet greet greet")
	write(t, dir, "node_modules/x/greet.js", "greet")
	idx, err := index.Scan(dir, index.Limits{MaxFiles: 100, MaxFileBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range idx.Files {
		paths = append(paths, f.Path)
	}
	if !reflect.DeepEqual(paths, []string{"greet.go", "greet_test.go", "other.go"}) || idx.Skipped != 1 {
		t.Fatalf("paths %v skipped %d", paths, idx.Skipped)
	}
	terms := index.Terms("Make Greet return a greeting; greet the world", 8)
	if !reflect.DeepEqual(terms, []string{"greet", "greeting", "world"}) {
		t.Fatalf("terms %v", terms)
	}
	hits := idx.Search(terms, 2, 10)
	if len(hits) != 2 || hits[0].Path != "greet.go" || !strings.Contains(hits[0].Content, "func Greet") || hits[0].LineStart != 1 {
		t.Fatalf("hits %+v", hits)
	}
	// Determinism.
	if again := idx.Search(terms, 2, 10); !reflect.DeepEqual(hits, again) {
		t.Fatal("search not deterministic")
	}
}

func TestScanLimits(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 5; i++ {
		write(t, dir, filepath.Join("d", string(rune('a'+i))+".txt"), strings.Repeat("x", 100))
	}
	idx, err := index.Scan(dir, index.Limits{MaxFiles: 3, MaxFileBytes: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Files) != 3 || !idx.Truncated || idx.Skipped != 3 {
		t.Fatalf("%+v", idx)
	}
	if _, err := index.Scan(filepath.Join(dir, "missing"), index.Limits{MaxFiles: 1, MaxFileBytes: 1}); err == nil {
		t.Fatal("missing root should fail")
	}
	if _, err := index.Scan(dir, index.Limits{}); err == nil {
		t.Fatal("zero limits should fail")
	}
}
