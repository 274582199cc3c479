//go:build unix

package workspace_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/codali-dev/codali/pkg/workspace"
)

// OpenRegular opens a regular file, and refuses a fifo (without waiting
// for a writer) and a directory.
func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	file, fifo := filepath.Join(dir, "f"), filepath.Join(dir, "p")
	if err := os.WriteFile(file, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	f, fi, err := workspace.OpenRegular(file)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	_ = f.Close()
	if err != nil || string(data) != "data" || fi.Size() != 4 {
		t.Fatalf("read %q, %v, size %d", data, err, fi.Size())
	}
	for _, p := range []string{fifo, dir} {
		if f, _, err := workspace.OpenRegular(p); !errors.Is(err, workspace.ErrNotRegular) {
			if f != nil {
				_ = f.Close()
			}
			t.Errorf("%s: %v, want ErrNotRegular", p, err)
		}
	}
	if _, _, err := workspace.OpenRegular(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}
