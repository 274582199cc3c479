package afs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// AppendHistory writes each day's lines into that day's file in the
// entries' order, creating history/ when it is missing.
func TestAppendHistoryGroupsByDay(t *testing.T) {
	dir := filepath.Join(t.TempDir(), Root)
	e := func(id, ts string) Entry {
		return Entry{ID: id, Timestamp: ts, SessionID: "s", Operation: Operation{Type: OpThoughtTrace, Name: "t", Input: json.RawMessage(`{}`), Success: true}}
	}
	if err := AppendHistory(dir, e("a", "2026-01-01T10:00:00Z"), e("b", "2026-01-02T10:00:00Z"), e("c", "2026-01-01T11:00:00Z")); err != nil {
		t.Fatal(err)
	}
	if err := AppendHistory(dir, e("d", "2026-01-01T12:00:00Z")); err != nil {
		t.Fatal(err)
	}
	for day, want := range map[string][]string{"2026-01-01": {"a", "c", "d"}, "2026-01-02": {"b"}} {
		data, err := os.ReadFile(filepath.Join(dir, DirHistory, day+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			l, err := ParseLine([]byte(line))
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, l.ID)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: ids %v, want %v", day, got, want)
		}
	}
}

// An entry that does not encode fails the append before any line is
// written, so a retry does not write the others twice.
func TestAppendHistoryEncodesFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), Root)
	good := Entry{ID: "a", Timestamp: "2026-01-01T10:00:00Z", SessionID: "s", Operation: Operation{Type: OpThoughtTrace, Name: "t", Input: json.RawMessage(`{}`)}}
	bad := good
	bad.ID, bad.Operation.Input = "b", json.RawMessage(`{not json`)
	if err := AppendHistory(dir, good, bad); err == nil || !strings.Contains(err.Error(), "history entry b") {
		t.Fatalf("err = %v, want the bad entry named", err)
	}
	if _, err := os.Stat(filepath.Join(dir, DirHistory)); !os.IsNotExist(err) {
		t.Errorf("history written despite the failure: %v", err)
	}
}

// WriteFile creates missing directories, replaces an existing file, and
// reports a directory it cannot create, naming the file.
func TestWriteFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), Root)
	for _, content := range []string{"first version\n", "second\n"} {
		if err := (Dir{Path: dir}).WriteFile(PathStateMD, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(PathStateMD))); err != nil || string(got) != content {
			t.Fatalf("state.md = %q, %v; want %q", got, err, content)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "memory"), []byte("a file where a directory belongs"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := (Dir{Path: dir}).WriteFile(PathHazards, []byte("{}")); err == nil || !strings.Contains(err.Error(), "write "+PathHazards) {
		t.Errorf("err = %v, want a failure naming %s", err, PathHazards)
	}
	// A dangling link where history/ belongs: the open finds no directory
	// and neither can one be made there.
	if err := os.Symlink(filepath.Join(t.TempDir(), "gone"), filepath.Join(dir, DirHistory)); err != nil {
		t.Fatal(err)
	}
	e := Entry{ID: "a", Timestamp: "2026-01-01T10:00:00Z", SessionID: "s", Operation: Operation{Type: OpThoughtTrace, Name: "t", Input: json.RawMessage(`{}`)}}
	if err := AppendHistory(dir, e); err == nil || !strings.Contains(err.Error(), "history") {
		t.Errorf("err = %v, want the history directory's failure", err)
	}
}
