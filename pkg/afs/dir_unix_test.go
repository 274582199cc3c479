//go:build unix

package afs

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A fifo the model's commands put where a .context/ file belongs neither
// blocks the reader or the writer nor is used: Read, Write, WriteFile
// and AppendHistory return at once with ErrNotRegular.
func TestDirNoLinksRefusesFifos(t *testing.T) {
	entry := Entry{ID: "a", Timestamp: "2026-01-01T10:00:00Z", SessionID: "s", Operation: Operation{Type: OpThoughtTrace, Name: "t", Input: json.RawMessage(`{}`)}}
	dir := filepath.Join(t.TempDir(), Root)
	for _, p := range []string{PathState, PathStateMD, HistoryPath(entry)} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(full, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d := Dir{Path: dir, NoLinks: true}
	if _, err := d.Read(); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "state.json is a fifo") {
		t.Errorf("Read: err = %v, want ErrNotRegular", err)
	}
	st := StateFile{}
	if err := d.Write(Files{State: &st}); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Write: err = %v, want ErrNotRegular", err)
	}
	if err := d.WriteFile(PathStateMD, []byte("x")); !errors.Is(err, ErrNotRegular) {
		t.Errorf("WriteFile: err = %v, want ErrNotRegular", err)
	}
	if err := d.AppendHistory(entry); !errors.Is(err, ErrNotRegular) {
		t.Errorf("AppendHistory: err = %v, want ErrNotRegular", err)
	}
}
