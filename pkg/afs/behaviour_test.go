package afs

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestDecayArithmetic(t *testing.T) {
	cases := []struct {
		intensity, rate, hours, want float64
	}{
		{10, 0.02, 0, 10},
		{10, 0.02, 1, 9.8},
		{10, 0.02, 24, 10 * math.Pow(0.98, 24)}, // 6.1578…
		{6, 0.10, 5, 6 * math.Pow(0.9, 5)},      // 3.5429…
		{4, 0.15, 2, 4 * 0.85 * 0.85},           // 2.89
		{5, 0.08, -3, 5},                        // clock skew: no decay
		{5, 1, 1, 0},
	}
	for _, c := range cases {
		if got := DecayedIntensity(c.intensity, c.rate, c.hours); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("DecayedIntensity(%v, %v, %v) = %v, want %v", c.intensity, c.rate, c.hours, got, c.want)
		}
	}
}

func TestDecayAndPrune(t *testing.T) {
	at := Timestamp(t0)
	e := NewEmotions()
	add := func(cat, id string, intensity float64) {
		e.Stores[cat][id] = Emotion{ID: id, Category: cat, Intensity: intensity, Timestamp: at, LastAccessed: at, DecayRate: DefaultDecay()[cat].DecayRate}
	}
	add(Fear, "f", 3)         // 3 × 0.98^5 = 2.71 ≥ 1: kept
	add(Curiosity, "c", 3)    // 3 × 0.90^5 = 1.77 < 2: pruned
	add(Excitement, "x", 10)  // 10 × 0.85^5 = 4.44 ≥ 2: kept
	add(Relief, "r", 3)       // 3 × 0.88^5 = 1.58 < 2: pruned
	add(Satisfaction, "s", 1) // 1 × 0.95^5 = 0.77 < 1: pruned
	out, pruned := e.DecayAndPrune(t0.Add(5 * time.Hour))
	if pruned != 3 {
		t.Errorf("pruned %d, want 3", pruned)
	}
	if got := out.Stores[Fear]["f"].Intensity; got != 2.71 {
		t.Errorf("fear = %v, want 2.71", got)
	}
	if got := out.Stores[Excitement]["x"].Intensity; got != 4.44 {
		t.Errorf("excitement = %v, want 4.44", got)
	}
	if _, ok := out.Stores[Curiosity]["c"]; ok {
		t.Error("curiosity below 2 was not pruned")
	}
	if out.Stores[Fear]["f"].LastAccessed != Timestamp(t0.Add(5*time.Hour)) {
		t.Error("last_accessed not moved to now")
	}
	if e.Stores[Curiosity]["c"].Intensity != 3 {
		t.Error("DecayAndPrune modified its receiver")
	}
	rules := DefaultDecay()
	want := map[string][2]float64{Fear: {0.02, 1}, Curiosity: {0.10, 2}, Satisfaction: {0.05, 1}, Frustration: {0.08, 2},
		Excitement: {0.15, 2}, Determination: {0.03, 1}, Caution: {0.06, 1}, Relief: {0.12, 2}}
	for c, w := range want {
		if rules[c].DecayRate != w[0] || rules[c].PruneBelow != w[1] {
			t.Errorf("%s rule = %+v, want %v", c, rules[c], w)
		}
	}
}

func newTestSession() *Session {
	return NewSession(SessionConfig{SessionID: "s", Producer: testProducer, Now: stepClock(t0, time.Second)})
}

func call(s *Session, tool string, args map[string]any, o Outcome) Signals {
	in, _ := json.Marshal(args)
	_, id := s.BeforeTool(Files{}, Call{Tool: tool}, in)
	return s.AfterTool(id, tool, in, o)
}

func TestSpinDetection(t *testing.T) {
	s := newTestSession()
	fail := Outcome{Success: false, Error: "exit code 1"}
	cmd := map[string]any{"command": []string{"go", "test"}}
	for i := 1; i <= 3; i++ {
		if sig := call(s, "run_command", cmd, fail); sig.Spinning || sig.SimilarActions != i {
			t.Fatalf("call %d: %+v, want %d similar and not spinning", i, sig, i)
		}
	}
	if sig := call(s, "run_command", cmd, fail); !sig.Spinning || sig.SimilarActions != 4 {
		t.Fatalf("4th similar call: %+v, want spinning", sig)
	}
	if s.Metacognition().ProgressStatus != ProgressSpinning {
		t.Errorf("progress_status = %s", s.Metacognition().ProgressStatus)
	}
	// A different action breaks the run.
	if sig := call(s, "read_file", map[string]any{"path": "a_test.go"}, Outcome{Success: true}); sig.Spinning || sig.SimilarActions != 1 {
		t.Errorf("after a different action: %+v", sig)
	}
	// Same action succeeding without touching files still counts (no
	// progress); a write that touches files is progress and resets.
	s2 := newTestSession()
	for i := 0; i < 3; i++ {
		call(s2, "read_file", map[string]any{"path": "a.go"}, Outcome{Success: true})
	}
	if sig := call(s2, "read_file", map[string]any{"path": "a.go"}, Outcome{Success: true}); !sig.Spinning {
		t.Errorf("4 identical reads without progress: %+v, want spinning", sig)
	}
	w := map[string]any{"path": "a.go", "content": "x"}
	for i := 0; i < 5; i++ {
		if sig := call(s2, "write_file", w, Outcome{Success: true, FilesTouched: []string{"a.go"}}); sig.Spinning {
			t.Fatalf("writes that make progress flagged spinning: %+v", sig)
		}
	}
	// A base metacognition's threshold wins over the default.
	base := Files{Metacognition: &Metacognition{SpinDetection: SpinDetection{SpinningThreshold: 2}}}
	s3 := NewSession(SessionConfig{SessionID: "s3", Now: stepClock(t0, time.Second), Base: base})
	call(s3, "run_command", cmd, fail)
	if sig := call(s3, "run_command", cmd, fail); !sig.Spinning {
		t.Errorf("threshold 2 from the base not honoured: %+v", sig)
	}
}

func TestHelpSeeking(t *testing.T) {
	s := newTestSession()
	if sig := call(s, "read_file", map[string]any{"path": "x"}, Outcome{Error: "no such file"}); sig.NeedsHelp {
		t.Fatalf("one failure raised help-seeking: %+v", sig)
	}
	sig := call(s, "edit_file", map[string]any{"path": "y"}, Outcome{Error: "old text not found"})
	if !sig.NeedsHelp || sig.ConsecutiveFailures != 2 {
		t.Fatalf("two consecutive failures: %+v, want help-seeking", sig)
	}
	if s.Metacognition().ProgressStatus != ProgressBlocked {
		t.Errorf("progress_status = %s, want blocked", s.Metacognition().ProgressStatus)
	}
	if sig := call(s, "list_dir", map[string]any{}, Outcome{Success: true}); sig.NeedsHelp || sig.ConsecutiveFailures != 0 {
		t.Errorf("a success did not reset help-seeking: %+v", sig)
	}
	last := s.Entries()[len(s.Entries())-4]
	if !strings.Contains(strings.Join(last.Metadata.Tags, ","), TagHelpSeeking) {
		t.Errorf("the second failure's entry is not tagged help_seeking: %+v", last.Metadata)
	}
}

func TestEmotionsFromOutcomes(t *testing.T) {
	s := newTestSession()
	call(s, "write_file", map[string]any{"path": "a"}, Outcome{Success: true, FilesTouched: []string{"a"}})
	em := s.Emotions()
	if em.Session.ConfidenceLevel != 55 || em.Session.AnxietyLevel != 28 || len(em.Stores[Satisfaction]) != 1 {
		t.Fatalf("after success: %+v, satisfaction %d", em.Session, len(em.Stores[Satisfaction]))
	}
	call(s, "write_file", map[string]any{"path": ".git/x"}, Outcome{Error: "blocked", Blocked: true})
	em = s.Emotions()
	if em.Session.AnxietyLevel != 36 || em.Session.ConfidenceLevel != 50 || len(em.Stores[Caution]) != 1 || len(em.Stores[Frustration]) != 1 {
		t.Fatalf("after a block: %+v caution %d frustration %d", em.Session, len(em.Stores[Caution]), len(em.Stores[Frustration]))
	}
	call(s, "read_file", map[string]any{"path": "a"}, Outcome{Success: true})
	if len(s.Emotions().Stores[Relief]) != 1 {
		t.Error("a success after a failure brings no relief")
	}
	for i := 0; i < 10; i++ {
		call(s, "run_command", map[string]any{"command": []string{"x"}}, Outcome{Error: "e"})
	}
	em = s.Emotions()
	if em.Session.AnxietyLevel != 100 && em.Session.AnxietyLevel < HighAnxiety {
		t.Errorf("anxiety after 10 failures = %v", em.Session.AnxietyLevel)
	}
	if h := em.Heuristics(); !h.ExtraChecks || !h.ConfirmDestructive || h.FastPath {
		t.Errorf("heuristics at high anxiety = %+v", h)
	}
	calm := NewEmotions()
	calm.Session.ConfidenceLevel = 90
	if h := calm.Heuristics(); !h.FastPath || h.ExtraChecks {
		t.Errorf("heuristics at high confidence = %+v", h)
	}
}

func TestHazardMatching(t *testing.T) {
	hs, err := ParseHazards([]byte(`{"schema_version":"0.3","playbooks":[
		{"id":"mig","trigger":"editing migrations","mitigation":"add a new migration","tools":["write_file","edit_file"],"paths":["db/migrations/**"]},
		{"id":"rm","trigger":"RM -RF","mitigation":"delete single files"},
		{"id":"any-go-mod","trigger":"go.mod edits","mitigation":"run go mod tidy","paths":["**/go.mod"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		c    Call
		want []string
	}{
		{"tool and path", Call{Tool: "edit_file", Paths: []string{"db/migrations/001.sql"}}, []string{"mig"}},
		{"read is not listed", Call{Tool: "read_file", Paths: []string{"db/migrations/001.sql"}}, nil},
		{"other path", Call{Tool: "edit_file", Paths: []string{"db/schema.sql"}}, nil},
		{"trigger text in the command, any case", Call{Tool: "run_command", Command: []string{"rm", "-rf", "build"}}, []string{"rm"}},
		{"paths only, any tool", Call{Tool: "read_file", Paths: []string{"svc/go.mod"}}, []string{"any-go-mod"}},
		{"symlink alias path also judged", Call{Tool: "write_file", Paths: []string{"alias.sql", "db/migrations/9.sql"}}, []string{"mig"}},
	}
	for _, c := range cases {
		var got []string
		for _, m := range MatchHazards(hs, c.c) {
			got = append(got, m.ID)
			if m.Mitigation == "" {
				t.Errorf("%s: match without mitigation", c.name)
			}
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: matched %v, want %v", c.name, got, c.want)
		}
	}
	// Other accepted shapes: a bare array, an object keyed by id, camelCase.
	for _, doc := range []string{
		`[{"trigger":"rm -rf","mitigation":"m"}]`,
		`{"fears":{"h1":{"trigger":"rm -rf","mitigation":"m","updatedAt":"2026-01-01T00:00:00Z"}}}`,
		`{"hazards":[{"id":"h1","trigger":"rm -rf","mitigation":"m"}]}`,
	} {
		hs, err := ParseHazards([]byte(doc))
		if err != nil || len(hs) != 1 || hs[0].ID == "" || !hs[0].Matches(Call{Tool: "run_command", Command: []string{"rm", "-rf", "/"}}) {
			t.Errorf("ParseHazards(%s) = %+v, %v", doc, hs, err)
		}
	}
	for _, doc := range []string{`{"playbooks":[{"id":"x","trigger":"t"}]}`, `{nope`} {
		if _, err := ParseHazards([]byte(doc)); !errors.Is(err, ErrRead) {
			t.Errorf("ParseHazards(%s) error = %v, want ErrRead", doc, err)
		}
	}
}

func TestPolicyTable(t *testing.T) {
	cases := []struct {
		path, policy string
		writable     bool
	}{
		{".context/memory/fears.json", PolicyReadOnly, false},
		{".context/knowledge/api.md", PolicyReadOnly, false},
		{".context/hivemind/fears.json", PolicyReadOnly, false},
		{".context/notes/todo.md", PolicyReadOnly, false},
		{".context/history/2026-01-01.jsonl", PolicySystemAppend, false},
		{".context/history", PolicySystemAppend, false},
		{".context/tools/lint.sh", PolicyExecutable, false},
		{".context/scratchpad/state.json", PolicyWritable, true},
		{"./.context/scratchpad/../memory/x", PolicyReadOnly, false},
		{".context/historyx/a", "", true},
		{"src/memory/x.go", "", true},
		{".context/other.json", "", true},
	}
	for _, c := range cases {
		r, ok := Classify(c.path)
		if ok != (c.policy != "") || r.Policy != c.policy {
			t.Errorf("Classify(%q) = %+v, %v; want policy %q", c.path, r, ok, c.policy)
		}
		err := CheckModelWrite(c.path)
		if c.writable != (err == nil) {
			t.Errorf("CheckModelWrite(%q) = %v, writable %v", c.path, err, c.writable)
		}
		if err != nil && (!errors.Is(err, ErrProtected) || !strings.Contains(err.Error(), c.policy) || !strings.Contains(err.Error(), "§8")) {
			t.Errorf("CheckModelWrite(%q) = %v, want ErrProtected with the table's reason", c.path, err)
		}
	}
	if len(Table()) != 7 {
		t.Errorf("table has %d rows, want 7", len(Table()))
	}
}

func TestValidateLine(t *testing.T) {
	good := `{"id":"1","timestamp":"2026-03-14T09:00:00Z","session_id":"s","operation":{"type":"tool_call","name":"read_file","input":{},"duration_ms":3,"success":true},"provenance":{},"metadata":{"tags":[],"files_touched":[],"redacted":false},"extensions":{}}`
	if err := ValidateLine([]byte(good)); err != nil {
		t.Fatalf("good line: %v", err)
	}
	cases := map[string]string{
		"not json":                    `{`,
		"array":                       `[]`,
		"two values":                  good + ` {}`,
		"missing id":                  strings.Replace(good, `"id":"1",`, ``, 1),
		"bad timestamp":               strings.Replace(good, `2026-03-14T09:00:00Z`, `yesterday`, 1),
		"unknown type":                strings.Replace(good, `"tool_call"`, `"tool_use"`, 1),
		"finished call, no duration":  strings.Replace(good, `"duration_ms":3,`, ``, 1),
		"negative duration":           strings.Replace(good, `"duration_ms":3`, `"duration_ms":-3`, 1),
		"success not bool":            strings.Replace(good, `"success":true`, `"success":"yes"`, 1),
		"files_touched not strings":   strings.Replace(good, `"files_touched":[]`, `"files_touched":[1]`, 1),
		"no extensions":               strings.Replace(good, `,"extensions":{}`, ``, 1),
		"provenance agent not string": strings.Replace(good, `"provenance":{}`, `"provenance":{"agent_id":1}`, 1),
	}
	for name, line := range cases {
		if err := ValidateLine([]byte(line)); !errors.Is(err, ErrShape) {
			t.Errorf("%s: ValidateLine = %v, want ErrShape", name, err)
		}
	}
	start := strings.Replace(strings.Replace(good, `"duration_ms":3,`, ``, 1), `"read_file"`, `"read_file:start"`, 1)
	if err := ValidateLine([]byte(start)); err != nil {
		t.Errorf("a start entry needs no duration: %v", err)
	}
}

func TestStateMDShape(t *testing.T) {
	st := StateFile{Meta: NewMeta(testProducer, t0), Entries: []StateEntry{
		{Section: SectionFacts, Key: "multi", Value: "line one\nline two", UpdatedAt: Timestamp(t0)},
		{Section: "custom", Key: "k", Value: "v", UpdatedAt: Timestamp(t0)},
	}}
	md := RenderStateMD(st, nil)
	lines, err := ParseStateMD(md)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || lines[0] != (MDLine{Section: "facts", Key: "multi", Value: "line one line two", Stamp: "2026-03-14 09:30"}) || lines[1].Section != "custom" {
		t.Errorf("parsed %+v", lines)
	}
	for _, bad := range []string{"- **k**: v\n", "## facts\n- **k**: v [2026-03-14]\n", "## facts\ntext\n"} {
		if _, err := ParseStateMD(bad); !errors.Is(err, ErrShape) {
			t.Errorf("ParseStateMD(%q) = %v, want ErrShape", bad, err)
		}
	}
}
