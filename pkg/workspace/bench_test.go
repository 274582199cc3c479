package workspace_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/workspace"
)

// benchRepo is a small Go module: 40 files in 5 packages.
func benchRepo(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	for p := 0; p < 5; p++ {
		for f := 0; f < 8; f++ {
			path := filepath.Join(dir, "pkg"+strconv.Itoa(p), fmt.Sprintf("f%d.go", f))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				b.Fatal(err)
			}
			body := fmt.Sprintf("package pkg%d\n\n// F%d does nothing much.\nfunc F%d(x int) int {\n\treturn x + %d\n}\n", p, f, f, f)
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/bench\n\ngo 1.22\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkPrepare is one phase's workspace work: materialise a local
// repository with its baseline, then close it.
func BenchmarkPrepare(b *testing.B) { benchPrepare(b, 0) }

// BenchmarkPrepareSpare is BenchmarkPrepare with a ready copy kept: the
// time a phase waits for its workspace when the copy made in the
// background after the last Prepare is ready (it waits for that here,
// outside the timer).
func BenchmarkPrepareSpare(b *testing.B) { benchPrepare(b, 1) }

func benchPrepare(b *testing.B, spares int) {
	repo := benchRepo(b)
	m := &workspace.Manager{Root: b.TempDir(), Spares: spares}
	b.Cleanup(m.Wait)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, err := m.Prepare(ctx, "run"+strconv.Itoa(i), 1, "builder", events.RepoRef{Path: repo})
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		m.Wait()
		b.StartTimer()
	}
}

// BenchmarkPrepareEditChange is the builder's workspace work: prepare,
// edit one file, take the change.
func BenchmarkPrepareEditChange(b *testing.B) {
	repo := benchRepo(b)
	m := &workspace.Manager{Root: b.TempDir()}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, err := m.Prepare(ctx, "run"+strconv.Itoa(i), 1, "builder", events.RepoRef{Path: repo})
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(w.Dir, "pkg0", "f0.go"), []byte("package pkg0\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		ch, err := w.Change(ctx)
		if err != nil || len(ch.Files) != 1 {
			b.Fatalf("%v %+v", err, ch.Files)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChangeNewFile is the builder's change when the run wrote one
// new file (what `codali bench` does): only Change is timed, on a
// workspace taken from a ready copy.
func BenchmarkChangeNewFile(b *testing.B) {
	benchChange(b, func(b *testing.B, w *workspace.Workspace) {
		if err := os.WriteFile(filepath.Join(w.Dir, "bench.txt"), []byte("bench\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkChangeEdit is the builder's change when the run edited one
// tracked file.
func BenchmarkChangeEdit(b *testing.B) {
	benchChange(b, func(b *testing.B, w *workspace.Workspace) {
		if err := os.WriteFile(filepath.Join(w.Dir, "pkg0", "f0.go"), []byte("package pkg0\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	})
}

func benchChange(b *testing.B, edit func(*testing.B, *workspace.Workspace)) {
	benchOnReadyCopy(b, "builder", edit, func(ctx context.Context, w *workspace.Workspace) (events.Change, error) {
		return w.Change(ctx)
	})
}

// BenchmarkApplyChange is the critic's workspace work on a change adding
// one file: apply it and read back what was written (only ApplyChange is
// timed, on a workspace taken from a ready copy).
func BenchmarkApplyChange(b *testing.B) {
	const diff = "diff --git a/bench.txt b/bench.txt\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..ba99195bae87cd8efd3684e3fe5bfa459c4bfcbf\n--- /dev/null\n+++ b/bench.txt\n@@ -0,0 +1 @@\n+bench\n"
	benchOnReadyCopy(b, "critic", nil, func(ctx context.Context, w *workspace.Workspace) (events.Change, error) {
		return w.ApplyChange(ctx, diff)
	})
}

// benchOnReadyCopy times step alone, on a workspace for role taken from a
// ready copy and given setup first (nil: none); step's change must name
// one file.
func benchOnReadyCopy(b *testing.B, role string, setup func(*testing.B, *workspace.Workspace), step func(context.Context, *workspace.Workspace) (events.Change, error)) {
	repo := benchRepo(b)
	m := &workspace.Manager{Root: b.TempDir(), Spares: 1}
	b.Cleanup(m.Wait)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		m.Wait()
		w, err := m.Prepare(ctx, "run"+strconv.Itoa(i), 1, role, events.RepoRef{Path: repo})
		if err != nil {
			b.Fatal(err)
		}
		if setup != nil {
			setup(b, w)
		}
		b.StartTimer()
		ch, err := step(ctx, w)
		if err != nil || len(ch.Files) != 1 {
			b.Fatalf("%v %+v", err, ch.Files)
		}
		b.StopTimer()
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
