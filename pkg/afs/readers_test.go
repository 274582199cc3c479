package afs

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

const camelMeta = `"schemaVersion":"0.3","producer":{"name":"oracle-code","version":"2.0.0","instanceId":"i1"},"lastUpdated":"2026-03-14T09:00:00Z"`
const snakeMeta = `"schema_version":"0.3","producer":{"name":"oracle-code","version":"2.0.0","instance_id":"i1"},"last_updated":"2026-03-14T09:00:00Z"`

// The same files written by a camelCase client and a snake_case client
// read back identically.
func TestCamelAndSnakeReaders(t *testing.T) {
	camel := map[string]string{
		PathState:                  `{` + camelMeta + `,"entries":[{"section":"facts","key":"db","value":"postgres","updatedAt":"2026-03-14T08:00:00Z"}]}`,
		PathMetacognition:          `{` + camelMeta + `,"currentStrategy":"tdd","progressStatus":"blocked","spinDetection":{"recentActions":["a"],"similarActionCount":1,"spinningThreshold":5},"cognitiveLoad":{"current":0.4,"warningThreshold":0.8},"helpSeeking":{"consecutiveFailures":2,"failureThreshold":2},"selfCorrections":[]}`,
		PathEmotions:               `{` + camelMeta + `,"session":{"mood":"calm","anxietyLevel":40,"confidenceLevel":60,"mode":"build"},"fear":{"fearX1":{"id":"fearX1","category":"fear","trigger":"prod db","context":"c","intensity":6,"timestamp":"2026-03-14T08:00:00Z","lastAccessed":"2026-03-14T08:00:00Z","decayRate":0.02,"relatedFiles":["db.go"]}}}`,
		PathEpistemic:              `{` + camelMeta + `,"goldenFacts":[{"id":"g1","statement":"Go 1.26","confidence":1,"updatedAt":"2026-03-14T08:00:00Z"}],"workingFacts":[],"assumptions":[],"unknowns":[],"contradictions":[]}`,
		PathGoals:                  `{` + camelMeta + `,"revision":1,"rootPartition":[],"goals":[{"id":"user-root","summary":"user goals","weight":0,"depth":0}],"focusStack":[],"conflicts":[]}`,
		PathHazards:                `{` + camelMeta + `,"playbooks":[{"id":"h1","trigger":"rm -rf","mitigation":"delete single files","updatedAt":"2026-03-14T08:00:00Z"}]}`,
		"history/2026-03-14.jsonl": `{"id":"e1","timestamp":"2026-03-14T09:00:00Z","sessionId":"s","operation":{"type":"tool_call","name":"read_file","input":{},"durationMs":3,"success":true},"provenance":{"agentId":"a"},"metadata":{"tags":[],"filesTouched":["x.go"],"redacted":false},"extensions":{"someKey":1}}` + "\n",
	}
	snake := map[string]string{
		PathState:                  `{` + snakeMeta + `,"entries":[{"section":"facts","key":"db","value":"postgres","updated_at":"2026-03-14T08:00:00Z"}]}`,
		PathMetacognition:          `{` + snakeMeta + `,"current_strategy":"tdd","progress_status":"blocked","spin_detection":{"recent_actions":["a"],"similar_action_count":1,"spinning_threshold":5},"cognitive_load":{"current":0.4,"warning_threshold":0.8},"help_seeking":{"consecutive_failures":2,"failure_threshold":2},"self_corrections":[]}`,
		PathEmotions:               `{` + snakeMeta + `,"session":{"mood":"calm","anxiety_level":40,"confidence_level":60,"mode":"build"},"fear":{"fearX1":{"id":"fearX1","category":"fear","trigger":"prod db","context":"c","intensity":6,"timestamp":"2026-03-14T08:00:00Z","last_accessed":"2026-03-14T08:00:00Z","decay_rate":0.02,"related_files":["db.go"]}}}`,
		PathEpistemic:              `{` + snakeMeta + `,"golden_facts":[{"id":"g1","statement":"Go 1.26","confidence":1,"updated_at":"2026-03-14T08:00:00Z"}],"working_facts":[],"assumptions":[],"unknowns":[],"contradictions":[]}`,
		PathGoals:                  `{` + snakeMeta + `,"revision":1,"root_partition":[],"goals":[{"id":"user-root","summary":"user goals","weight":0,"depth":0}],"focus_stack":[],"conflicts":[]}`,
		PathHazards:                `{` + snakeMeta + `,"playbooks":[{"id":"h1","trigger":"rm -rf","mitigation":"delete single files","updated_at":"2026-03-14T08:00:00Z"}]}`,
		"history/2026-03-14.jsonl": `{"id":"e1","timestamp":"2026-03-14T09:00:00Z","session_id":"s","operation":{"type":"tool_call","name":"read_file","input":{},"duration_ms":3,"success":true},"provenance":{"agent_id":"a"},"metadata":{"tags":[],"files_touched":["x.go"],"redacted":false},"extensions":{"someKey":1}}` + "\n",
	}
	read := func(files map[string]string) Files {
		t.Helper()
		dir := t.TempDir()
		for p, c := range files {
			full := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := Check(dir); err != nil {
			t.Fatalf("Check: %v", err)
		}
		f, err := ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	c, s := read(camel), read(snake)
	if !reflect.DeepEqual(c, s) {
		t.Fatalf("camelCase and snake_case read differently:\n%+v\n%+v", c, s)
	}
	// Spot checks that the values arrived (not just equally empty).
	if c.Producer() != "oracle-code 2.0.0 i1" {
		t.Errorf("producer = %q", c.Producer())
	}
	if c.Metacognition.SpinDetection.SpinningThreshold != 5 || c.Metacognition.HelpSeeking.ConsecutiveFailures != 2 {
		t.Errorf("metacognition = %+v", c.Metacognition)
	}
	em := c.Emotions.Stores[Fear]["fearX1"]
	if c.Emotions.Session.AnxietyLevel != 40 || em.LastAccessed == "" || em.DecayRate != 0.02 || len(em.RelatedFiles) != 1 {
		t.Errorf("emotions = %+v / %+v", c.Emotions.Session, em)
	}
	if len(c.Epistemic.GoldenFacts) != 1 || c.Epistemic.GoldenFacts[0].UpdatedAt == "" {
		t.Errorf("epistemic = %+v", c.Epistemic)
	}
	if h := c.History[0]; h.Operation.DurationMS == nil || *h.Operation.DurationMS != 3 || h.SessionID != "s" || h.Metadata.FilesTouched[0] != "x.go" ||
		string(h.Extensions["someKey"]) != "1" {
		t.Errorf("history = %+v", h)
	}
	if c.Hazards.Playbooks[0].UpdatedAt == "" {
		t.Errorf("hazards = %+v", c.Hazards)
	}
}

func TestSnakeKey(t *testing.T) {
	for in, want := range map[string]string{
		"anxietyLevel": "anxiety_level", "durationMs": "duration_ms", "instanceID": "instance_id", "already_snake": "already_snake",
		"fear-1a2b": "fear-1a2b", "Upper": "Upper", "x": "x", "lastAccessed": "last_accessed", "parentEntryId": "parent_entry_id",
	} {
		if got := snakeKey(in); got != want {
			t.Errorf("snakeKey(%q) = %q, want %q", in, got, want)
		}
	}
}
