package afs

import (
	"path/filepath"
	"testing"
)

// BenchmarkReadDir reads a .context/ as Write renders it (the golden
// files' content, snake_case).
func BenchmarkReadDir(b *testing.B) {
	f, err := ReadDir(filepath.Join("testdata", "golden"))
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(b.TempDir(), Root)
	if err := Write(dir, f); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadDir(dir); err != nil {
			b.Fatal(err)
		}
	}
}
