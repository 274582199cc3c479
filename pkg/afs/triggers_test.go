package afs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Triggers are raised by repeated failures, help-seeking, spinning, low
// confidence and hazards, and resolved when their condition clears; the
// live session and the projection of its entries agree.
func TestAnalysisTriggers(t *testing.T) {
	s := NewSession(SessionConfig{SessionID: "tr.a1", Producer: testProducer, Now: stepClock(t0, time.Second)})
	call := func(path string, ok, writes bool) {
		in := raw(t, map[string]string{"path": path})
		_, id := s.BeforeTool(Files{}, Call{Tool: "read_file", Paths: []string{path}}, in)
		o := Outcome{Success: ok}
		if writes {
			o.FilesTouched = []string{path}
		}
		s.AfterTool(id, "read_file", in, o)
	}
	status := func() map[string]AnalysisTrigger {
		files, _ := s.Files(Files{})
		out := map[string]AnalysisTrigger{}
		for _, tr := range files.Triggers.Triggers {
			out[tr.Kind] = tr
		}
		return out
	}
	call("a.go", false, false)
	if got := status(); len(got) != 0 {
		t.Fatalf("one failure raised %+v", got)
	}
	call("a.go", false, false)
	got := status()
	if got[TriggerRepeatedFailure].Status != TriggerPending || got[TriggerHelpSeeking].Status != TriggerPending ||
		got[TriggerRepeatedFailure].Subject != "read_file:a.go" || got[TriggerRepeatedFailure].SourceEntry != "tr.a1#0006" {
		t.Fatalf("after two failures: %+v", got)
	}
	call("b.go", true, false)
	got = status()
	if got[TriggerHelpSeeking].Status != TriggerResolved || got[TriggerRepeatedFailure].Status != TriggerPending {
		t.Errorf("a success elsewhere: %+v", got)
	}
	call("a.go", true, false)
	if got = status(); got[TriggerRepeatedFailure].Status != TriggerResolved || got[TriggerRepeatedFailure].ResolvedAt == "" {
		t.Errorf("the same action succeeding: %+v", got)
	}
	// Failures drive confidence below the threshold: 50, then -5 a
	// failure (and -5 more once spinning).
	for i := 0; i < 6; i++ {
		call("c.go", false, false)
	}
	got = status()
	if got[TriggerLowConfidence].Status != TriggerPending || got[TriggerSpinning].Status != TriggerPending || got[TriggerSpinning].Count < 2 {
		t.Errorf("after six failures: %+v", got)
	}
	call("c.go", true, true)
	got = status()
	if got[TriggerSpinning].Status != TriggerResolved {
		t.Errorf("progress: %+v", got)
	}
	files, _ := s.Files(Files{})
	if p := files.Triggers.Pending(); len(p) != 1 || p[0].Kind != TriggerLowConfidence {
		t.Errorf("pending %+v", p)
	}
	if len(files.Triggers.Automatic) != 5 || files.Triggers.Automatic[0].Threshold != DefaultSpinningThreshold {
		t.Errorf("automatic %+v", files.Triggers.Automatic)
	}
}

// The repository's own triggers file is read (camelCase too) and merged
// by id: the run's newer copy wins, others are kept.
func TestTriggersMergeWithTheRepository(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, filepath.FromSlash(PathTriggers))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	old := `{"schemaVersion":"0.3","producer":{"name":"hafs","version":"1"},"lastUpdated":"2026-01-01T00:00:00Z","automatic":[],"triggers":[` +
		`{"id":"help_seeking","kind":"help_seeking","reason":"old","status":"pending","count":1,"sourceEntry":"x#1","raisedAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"},` +
		`{"id":"review-docs","kind":"review","reason":"docs are stale","status":"pending","count":1,"sourceEntry":"x#2","raisedAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}]}`
	if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	base, err := ReadDir(dir)
	if err != nil || base.Triggers == nil || len(base.Triggers.Triggers) != 2 || base.Triggers.Triggers[0].SourceEntry != "x#1" {
		t.Fatalf("read %+v, %v", base.Triggers, err)
	}
	s := NewSession(SessionConfig{SessionID: "m.a1", Producer: testProducer, Now: stepClock(t0, time.Second)})
	for i := 0; i < 2; i++ {
		in := raw(t, map[string]string{"path": "x.go"})
		_, id := s.BeforeTool(base, Call{Tool: "read_file"}, in)
		s.AfterTool(id, "read_file", in, Outcome{})
	}
	files, _ := s.Files(base)
	b, _ := json.Marshal(files.Triggers.Triggers)
	var got []AnalysisTrigger
	_ = json.Unmarshal(b, &got)
	if len(got) != 3 || got[0].ID != TriggerHelpSeeking || got[0].Reason == "old" || got[1].ID != "review-docs" {
		t.Errorf("merged triggers %s", b)
	}
}
