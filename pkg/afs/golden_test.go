package afs

import (
	"testing"
	"time"
)

func TestGoldenFiles(t *testing.T) {
	s, base := scenario(t)
	files, conflicts := Project(ProjectInput{Producer: testProducer, Entries: s.Entries(), Base: base, Cognition: scenarioCognition()})
	if len(conflicts) != 0 {
		t.Fatalf("conflicts: %+v", conflicts)
	}
	out, err := Render(files)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{PathState, PathStateMD, PathMetacognition, PathGoals, PathEmotions, PathEpistemic, PathTriggers, PathHazards, "history/2026-03-14.jsonl"}
	if len(out) != len(want) {
		t.Errorf("rendered %d files, want %d: %v", len(out), len(want), sortedKeys(out))
	}
	for _, p := range want {
		got, ok := out[p]
		if !ok {
			t.Errorf("%s not rendered", p)
			continue
		}
		readGolden(t, p, got)
	}
}

// The snapshot state.md taken before a hazardous call carries the
// mitigation.
func TestGoldenSnapshotWithHazard(t *testing.T) {
	base := scenarioBase()
	s := NewSession(SessionConfig{SessionID: "run-2.a1", Producer: testProducer, Now: stepClock(t0, time.Second), Base: base})
	s.SetState(SectionContext, "request", "Rename a column")
	in := raw(t, map[string]any{"path": "db/migrations/002.sql", "content": "ALTER TABLE"})
	snap, _ := s.BeforeTool(base, Call{Tool: "write_file", Paths: []string{"db/migrations/002.sql"}}, in)
	if len(snap.Hazards) != 1 || snap.Hazards[0].ID != "migrations" {
		t.Fatalf("hazards = %+v, want the migrations playbook", snap.Hazards)
	}
	readGolden(t, "snapshot-state.md", []byte(s.StateMD(base, snap)))
}
