package afs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Export, read back, same state: the files written by Write read back
// into Files that render byte for byte the same, pass Check, and the
// history read back projects to the same files again.
func TestExportRoundTrip(t *testing.T) {
	s, base := scenario(t)
	files, _ := Project(ProjectInput{Producer: testProducer, Entries: s.Entries(), Base: base, Cognition: scenarioCognition()})
	dir := filepath.Join(t.TempDir(), ".context")
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	if err := Check(dir); err != nil {
		t.Fatalf("Check: %v", err)
	}
	back, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	back.Snapshot = files.Snapshot
	want, _ := Render(files)
	got, err := Render(back)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sortedKeys(got), sortedKeys(want)) {
		t.Fatalf("files %v, want %v", sortedKeys(got), sortedKeys(want))
	}
	for p := range want {
		if !bytes.Equal(got[p], want[p]) {
			t.Errorf("%s changed in the round trip:\n%s\nwant\n%s", p, got[p], want[p])
		}
	}
	if !reflect.DeepEqual(back.History, s.Entries()) {
		t.Errorf("history read back differs from the recorded entries")
	}
	again, _ := Project(ProjectInput{Producer: testProducer, Entries: back.History, Base: base, Cognition: scenarioCognition()})
	if r, _ := Render(again); !bytes.Equal(r[PathMetacognition], want[PathMetacognition]) || !bytes.Equal(r[PathEmotions], want[PathEmotions]) {
		t.Errorf("projection of the history read back differs")
	}
	// The session's live view equals the projection of its entries.
	live := s.Metacognition()
	if live.SpinDetection.SimilarActionCount != files.Metacognition.SpinDetection.SimilarActionCount ||
		live.HelpSeeking.ConsecutiveFailures != files.Metacognition.HelpSeeking.ConsecutiveFailures {
		t.Errorf("live metacognition %+v differs from the projection %+v", live, files.Metacognition)
	}
}

func TestCheckReportsShapeProblems(t *testing.T) {
	dir := t.TempDir()
	write := func(p, content string) {
		t.Helper()
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(PathState, `{"entries":[]}`)
	write(PathMetacognition, `{"schemaVersion":"0.3","producer":{"name":"x","version":"1"},"lastUpdated":"2026-01-01T00:00:00Z"}`)
	write(PathStateMD, "# State\n\n## facts\n\n* not a bullet\n")
	write("history/2026-01-01.jsonl", `{"id":"1"}`+"\n")
	write("history/today.jsonl", "")
	write(PathTriggers, `{"schema_version":"0.3","producer":{"name":"x","version":"1"},"last_updated":"2026-01-01T00:00:00Z","triggers":[]}`)
	err := Check(dir)
	if !errors.Is(err, ErrShape) {
		t.Fatalf("Check = %v, want ErrShape", err)
	}
	for _, want := range []string{
		"state.json: schema_version", "state.json: producer.name is empty", "metacognition.json: current_strategy is missing",
		"state.md line 5", "2026-01-01.jsonl line 1", "analysis-triggers.json: automatic is missing", "today.jsonl: history files are named",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check error lacks %q:\n%v", want, err)
		}
	}
	if err := Check(t.TempDir()); err == nil || !strings.Contains(err.Error(), "state.json: missing") {
		t.Errorf("empty dir: Check = %v, want state.json missing", err)
	}
}

func TestReadDirReportsBadFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "scratchpad"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, PathGoals), []byte("{nope"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadDir(dir)
	if !errors.Is(err, ErrRead) || !strings.Contains(err.Error(), PathGoals) {
		t.Fatalf("ReadDir = %v, want ErrRead naming %s", err, PathGoals)
	}
}
