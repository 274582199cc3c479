package afs

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A workspace's .context/ (NoLinks) is never read or written through a
// symbolic link: not the directory, not a subdirectory, not a file. What
// the links point at stays untouched, and the error names the link.
func TestDirNoLinks(t *testing.T) {
	golden, err := ReadDir(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	entry := Entry{ID: "a", Timestamp: "2026-01-01T10:00:00Z", SessionID: "s", Operation: Operation{Type: OpThoughtTrace, Name: "t", Input: json.RawMessage(`{}`)}}
	for _, tc := range []struct {
		name string
		link string // path under .context made a link to the outside
		// which of Read, Write (of the golden files), WriteFile (state.md)
		// and AppendHistory meet the link
		read, write, writeFile, appendHistory bool
	}{
		{name: "context dir", link: ".", read: true, write: true, writeFile: true, appendHistory: true},
		{name: "scratchpad dir", link: "scratchpad", read: true, write: true, writeFile: true},
		{name: "history dir", link: "history", read: true, write: true, appendHistory: true},
		{name: "memory dir", link: "memory", read: true, write: true},
		{name: "hivemind dir", link: "hivemind", read: true},
		{name: "state file", link: PathState, read: true, write: true},
		// A link in history/ is not listed as a history file.
		{name: "dangling history file", link: HistoryPath(entry), appendHistory: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, outside := t.TempDir(), t.TempDir()
			dir := filepath.Join(ws, Root)
			// The outside holds a readable .context of its own.
			if err := Write(outside, golden); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(outside, "hivemind"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(outside, "hivemind", "secret.json"), []byte(`{"token":"x"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(outside, filepath.FromSlash(tc.link))
			if tc.link == "." {
				target = outside
			}
			if tc.link == HistoryPath(entry) {
				target = filepath.Join(outside, "gone.jsonl")
			}
			link := filepath.Join(dir, filepath.FromSlash(tc.link))
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			before := snapshotTree(t, outside)
			d := Dir{Path: dir, NoLinks: true}

			check := func(op string, err error, want bool) {
				t.Helper()
				if errors.Is(err, ErrLink) != want || (!want && err != nil) {
					t.Errorf("%s: err = %v, want ErrLink %v", op, err, want)
				}
			}
			f, err := d.Read()
			check("Read", err, tc.read)
			if f.State != nil || f.Hivemind != nil || f.Hazards != nil || len(f.History) > 0 {
				t.Errorf("Read returned what the link leads to: %+v", f)
			}
			check("Write", d.Write(golden), tc.write)
			check("WriteFile", d.WriteFile(PathStateMD, []byte("x")), tc.writeFile)
			check("AppendHistory", d.AppendHistory(entry), tc.appendHistory)
			if after := snapshotTree(t, outside); !equalTrees(before, after) {
				t.Errorf("the outside changed through the link")
			}
			// Without NoLinks the link is followed (scope directories the
			// operator configures may be links).
			if tc.link == "." {
				if f, err := (Dir{Path: dir}).Read(); err != nil || f.State == nil {
					t.Errorf("a plain Dir does not follow the link: %v", err)
				}
			}
		})
	}
}

func snapshotTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		out[p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
