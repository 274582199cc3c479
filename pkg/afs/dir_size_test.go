package afs

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirNoLinksRefusesHugeFiles: a model's command can leave a file up
// to the sandbox's size limit in .context/ (sparse: no disk needed); the
// workspace's files are not read whole into memory, and the rest still is.
func TestDirNoLinksRefusesHugeFiles(t *testing.T) {
	entry := Entry{ID: "a", Timestamp: "2026-01-01T10:00:00Z", SessionID: "s", Operation: Operation{Type: OpThoughtTrace, Name: "t", Input: json.RawMessage(`{}`)}}
	dir := filepath.Join(t.TempDir(), Root)
	d := Dir{Path: dir, NoLinks: true}
	goals := GoalsFile{}
	if err := d.Write(Files{Goals: &goals}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{PathState, HistoryPath(entry)} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(full, 1<<30); err != nil {
			t.Fatal(err)
		}
	}
	f, err := d.Read()
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Read: err = %v, want ErrTooLarge", err)
	}
	for _, name := range []string{"state.json", "history/"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("Read: err = %v, want it to name %s", err, name)
		}
	}
	if f.State != nil || len(f.History) != 0 || f.Goals == nil {
		t.Errorf("Read: state %v, %d history entries, goals %v; want only the goals", f.State, len(f.History), f.Goals)
	}
	// At the bound it is still read (and fails as the JSON it is not).
	full := filepath.Join(dir, filepath.FromSlash(PathState))
	if err := os.Truncate(full, MaxFileBytes); err != nil {
		t.Fatal(err)
	}
	if _, err := d.readFile(PathState); err != nil {
		t.Errorf("a file of MaxFileBytes: %v", err)
	}
}
