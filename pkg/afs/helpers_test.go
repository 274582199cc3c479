package afs

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/cognition"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var testProducer = Producer{Name: ProducerName, Version: "1.2.3", InstanceID: "test-instance"}

// stepClock returns a clock that starts at start and advances by step on
// every call.
func stepClock(start time.Time, step time.Duration) func() time.Time {
	t := start.Add(-step)
	return func() time.Time {
		t = t.Add(step)
		return t
	}
}

var t0 = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

func raw(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// scenarioBase is a repository's own .context: one hazard playbook and a
// state entry.
func scenarioBase() Files {
	return Files{
		State: &StateFile{Meta: NewMeta(Producer{Name: "hafs", Version: "0.9"}, t0.Add(-time.Hour)),
			Entries: []StateEntry{{Section: SectionFacts, Key: "language", Value: "Go", UpdatedAt: Timestamp(t0.Add(-time.Hour))}}},
		Hazards: &HazardFile{Meta: NewMeta(Producer{Name: "hafs", Version: "0.9"}, t0.Add(-time.Hour)), Playbooks: []Hazard{
			{ID: "migrations", Trigger: "editing SQL migrations", Mitigation: "add a new migration instead of changing an old one", Tools: []string{"write_file", "edit_file"}, Paths: []string{"db/migrations/**"}, Severity: "high"},
			{ID: "rm-rf", Trigger: "rm -rf", Mitigation: "never delete recursively; delete single files"},
		}},
	}
}

// scenario records a small build session: state and strategy, a thought,
// a successful read, a hazardous edit, then a failing command repeated
// until spinning.
func scenario(t *testing.T) (*Session, Files) {
	t.Helper()
	base := scenarioBase()
	s := NewSession(SessionConfig{SessionID: "run-1.a1", ProjectID: "demo", AgentID: "builder", ModelID: "scripted", Producer: testProducer,
		Now: stepClock(t0, 1500*time.Millisecond), Base: base})
	s.SetState(SectionContext, "request", "Add a greeting")
	s.SetState(SectionDecisions, "plan", "edit hello.go, then run the tests")
	s.SetState(SectionGoals, "ship", "greeting printed")
	s.SetStrategy("edit hello.go, then run the tests")
	s.AddEpistemic(EpistemicItem{ID: "verify-1", Kind: KindAssumption, Statement: "go test ./... verifies the change", Confidence: 0.7, Source: "plan"})
	s.Thought("Read the file first.")
	in := raw(t, map[string]any{"path": "hello.go"})
	_, id := s.BeforeTool(base, Call{Tool: "read_file", Paths: []string{"hello.go"}}, in)
	s.AfterTool(id, "read_file", in, Outcome{Success: true, DurationMS: 3, Output: "package main"})
	in = raw(t, map[string]any{"path": "db/migrations/001.sql", "old": "a", "new": "b"})
	_, id = s.BeforeTool(base, Call{Tool: "edit_file", Paths: []string{"db/migrations/001.sql"}}, in)
	s.AfterTool(id, "edit_file", in, Outcome{Success: true, DurationMS: 4, FilesTouched: []string{"db/migrations/001.sql"}})
	cmd := raw(t, map[string]any{"command": []string{"go", "test", "./..."}})
	for i := 0; i < 4; i++ {
		_, id = s.BeforeTool(base, Call{Tool: "run_command", Command: []string{"go", "test", "./..."}}, cmd)
		s.AfterTool(id, "run_command", cmd, Outcome{Success: false, DurationMS: 120, Error: "exit code 1"})
	}
	s.SelfCorrect("spinning: run_command:go test ./... 4 times without progress", "read the failing test before running it again")
	return s, base
}

func scenarioCognition() *cognition.CognitionState {
	st := cognition.NewState()
	st.Revision = 2
	st.GoalTree.UserPartition.Children = []cognition.GoalNode{
		{NodeID: "run-1", Summary: "Add a greeting", Weight: 50, Children: []cognition.GoalNode{
			{NodeID: "run-1.s1", Summary: "edit hello.go", Weight: 40, Children: []cognition.GoalNode{}},
			{NodeID: "run-1.s2", Summary: "keep output stable", Weight: -10, Children: []cognition.GoalNode{}},
		}},
	}
	st.L1Memory.Entries = []string{"tests are green"}
	return &st
}

func readGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", filepath.FromSlash(name))
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("golden %s: %v (run go test -update)", name, err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from its golden file:\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}
