package audit

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/afs"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/redact"
)

// TestStateEncoderKeepsPlanStepDescriptions: the builder records each
// plan step as a state.set entry {"section": "goals", "key": <step id>,
// "value": <description>}; a step named hash-password or rotate-token
// keeps its description in the history (it was read as a name/value pair
// and redacted), while a real pair beside it, a tool call's input of the
// same shape, and a secret inside a description are still redacted, in a
// first state and after changes.
func TestStateEncoderKeepsPlanStepDescriptions(t *testing.T) {
	r, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sess := afs.NewSession(afs.SessionConfig{SessionID: "guide.a1", AgentID: "builder", Now: func() time.Time { return t0 }})
	sess.SetState(afs.SectionGoals, "hash-password", "Hash the password with bcrypt before storing it")
	sess.SetState(afs.SectionGoals, "rotate-token", "Rotate the token on every login")
	sess.SetState(afs.SectionFacts, "db_password", "key AKIAIOSFODNN7EXAMPLE leaked")
	sess.Record(afs.Operation{Type: afs.OpToolCall, Name: "set_env", Success: true,
		Input: json.RawMessage(`{"section":"goals","key":"db_password","value":"hunter2-tool"}`)}, afs.EntryMetadata{}, "")
	st := NewState("guide")
	st.Attempts = []Attempt{{Attempt: 1, Cognition: &events.BuildCognition{Entries: sess.Entries()}}}
	st.Attempts[0].ToolCalls = []events.ToolExecution{{Step: 1, Tool: "run", Call: json.RawMessage(`{}`),
		Args: json.RawMessage(`{"env":[{"name":"password","value":"hunter2-env"}]}`)}}
	enc := &stateEncoder{}
	check := func(step string) {
		t.Helper()
		got, err := enc.encode(r, st)
		if err != nil {
			t.Fatal(err)
		}
		for _, keep := range []string{"Hash the password with bcrypt before storing it", "Rotate the token on every login", `"key":"hash-password"`} {
			if !strings.Contains(string(got), keep) {
				t.Errorf("%s: the history lost %q:\n%s", step, keep, got)
			}
		}
		for _, secret := range []string{"hunter2-tool", "hunter2-env", "AKIAIOSFODNN7EXAMPLE"} {
			if strings.Contains(string(got), secret) {
				t.Errorf("%s: the history keeps %q:\n%s", step, secret, got)
			}
		}
		// Everything but the state.set inputs redacts as the whole state.
		if want := wholeRedaction(t, r, st); !strings.Contains(want, "[REDACTED:secret]") {
			t.Errorf("%s: the whole redaction has no pair redacted: the test proves nothing", step)
		}
	}
	check("first state")
	sess.SetState(afs.SectionGoals, "api-key-check", "Check the api key header")
	st.Attempts[0].Cognition = &events.BuildCognition{Entries: sess.Entries()}
	check("a step added")
	// The same input under a tool call is a pair again.
	entries := sess.Entries()
	entries[0].Operation.Type, entries[0].Operation.Name = afs.OpToolCall, "set_env"
	st.Attempts[0].Cognition = &events.BuildCognition{Entries: entries}
	got, err := enc.encode(r, st)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "Hash the password with bcrypt") {
		t.Errorf("a tool call's pair kept its value:\n%s", got)
	}
}
