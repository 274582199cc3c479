package afs

import (
	"encoding/json"
	"testing"
	"time"
)

func stateOf(entries ...StateEntry) *StateFile { return &StateFile{Entries: entries} }

func TestMergeScopesPreferProject(t *testing.T) {
	early, late := Timestamp(t0), Timestamp(t0.Add(time.Hour))
	project := Files{State: stateOf(StateEntry{Section: "facts", Key: "db", Value: "postgres", UpdatedAt: early})}
	user := Files{
		State:         stateOf(StateEntry{Section: "facts", Key: "db", Value: "mysql", UpdatedAt: late}, StateEntry{Section: "facts", Key: "editor", Value: "vim", UpdatedAt: early}),
		Metacognition: &Metacognition{CurrentStrategy: "user strategy"},
		Hivemind:      map[string]json.RawMessage{"fears.json": json.RawMessage(`{"from":"user"}`)},
	}
	global := Files{
		State:    stateOf(StateEntry{Section: "facts", Key: "editor", Value: "emacs", UpdatedAt: late}, StateEntry{Section: "facts", Key: "os", Value: "linux", UpdatedAt: early}),
		Hivemind: map[string]json.RawMessage{"fears.json": json.RawMessage(`{"from":"global"}`), "knowledge.json": json.RawMessage(`{"from":"global"}`)},
	}
	out, conflicts := MergeScopes(project, user, global)
	want := map[string]string{"db": "postgres", "editor": "vim", "os": "linux"}
	for k, v := range want {
		if got, _ := out.State.Get("facts", k); got != v {
			t.Errorf("facts/%s = %q, want %q", k, got, v)
		}
	}
	if len(out.State.Entries) != 3 {
		t.Errorf("entries = %+v", out.State.Entries)
	}
	if len(conflicts) != 2 || conflicts[0].Key != "facts/db" || conflicts[0].Kept == conflicts[0].Dropped || conflicts[0].Rule != "scope" {
		t.Errorf("conflicts = %+v", conflicts)
	}
	if out.Metacognition == nil || out.Metacognition.CurrentStrategy != "user strategy" {
		t.Error("metacognition missing in the project was not taken from the user scope")
	}
	if string(out.Hivemind["fears.json"]) != `{"from":"user"}` || string(out.Hivemind["knowledge.json"]) != `{"from":"global"}` {
		t.Errorf("hivemind = %s", out.Hivemind)
	}
}

func TestProjectNewestWins(t *testing.T) {
	old := Timestamp(t0.Add(-time.Hour))
	base := Files{State: stateOf(
		StateEntry{Section: "context", Key: "request", Value: "old request", UpdatedAt: old},
		StateEntry{Section: "facts", Key: "future", Value: "from the future", UpdatedAt: Timestamp(t0.Add(24 * time.Hour))},
	)}
	s := NewSession(SessionConfig{SessionID: "s", Producer: testProducer, Now: stepClock(t0, time.Second)})
	s.SetState("context", "request", "new request")
	s.SetState("facts", "future", "from the run")
	files, conflicts := Project(ProjectInput{Producer: testProducer, Entries: s.Entries(), Base: base})
	if v, _ := files.State.Get("context", "request"); v != "new request" {
		t.Errorf("request = %q, want the newer run value", v)
	}
	if v, _ := files.State.Get("facts", "future"); v != "from the future" {
		t.Errorf("future = %q, want the newer base value", v)
	}
	if len(conflicts) != 2 || conflicts[0].Rule != "newest" {
		t.Errorf("conflicts = %+v", conflicts)
	}
	// Same input, same output.
	again, _ := Project(ProjectInput{Producer: testProducer, Entries: s.Entries(), Base: base})
	a, _ := Render(files)
	b, _ := Render(again)
	for p := range a {
		if string(a[p]) != string(b[p]) {
			t.Errorf("%s differs between two projections of the same input", p)
		}
	}
}
