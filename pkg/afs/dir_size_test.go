package afs

import (
	"encoding/json"
	"errors"
	"fmt"
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
	if _, err := d.readFile(PathState, nil); err != nil {
		t.Errorf("a file of MaxFileBytes: %v", err)
	}
}

// TestDirNoLinksBoundsARead: many files, each under MaxFileBytes, are
// not read past MaxReadBytes in all, nor past MaxDirFiles of a directory.
func TestDirNoLinksBoundsARead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), Root)
	d := Dir{Path: dir, NoLinks: true}
	hist := filepath.Join(dir, DirHistory)
	if err := os.MkdirAll(hist, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range MaxReadBytes/MaxFileBytes + 1 {
		full := filepath.Join(hist, fmt.Sprintf("2026-01-%02d.jsonl", i+1))
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(full, MaxFileBytes); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.readHistory(new(int64(MaxReadBytes))); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "per read of .context") {
		t.Errorf("history of %d files of MaxFileBytes: err = %v, want ErrTooLarge for the last", MaxReadBytes/MaxFileBytes+1, err)
	}
	mind := filepath.Join(dir, DirHivemind)
	if err := os.MkdirAll(mind, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range MaxDirFiles + 1 {
		if err := os.WriteFile(filepath.Join(mind, fmt.Sprintf("n%04d.json", i)), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names, err := d.jsonNames(DirHivemind, ".json")
	if !errors.Is(err, ErrTooLarge) || len(names) != MaxDirFiles || names[0] != "n0000.json" {
		t.Errorf("hivemind of %d files: %d names, err = %v; want the first %d and ErrTooLarge", MaxDirFiles+1, len(names), err, MaxDirFiles)
	}
	if names, err := (Dir{Path: dir}).jsonNames(DirHivemind, ".json"); err != nil || len(names) != MaxDirFiles+1 {
		t.Errorf("without NoLinks (an operator's directory): %d names, %v; want all", len(names), err)
	}
}
