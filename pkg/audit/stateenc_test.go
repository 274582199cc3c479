package audit

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/redact"
)

// wholeRedaction is what stateEncoder must equal: the whole state
// marshalled and redacted at once, canonicalised.
func wholeRedaction(t *testing.T, r *redact.Redactor, st State) string {
	t.Helper()
	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	red, err := r.JSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	c, err := rao.CanonicalizeJSON(red)
	if err != nil {
		t.Fatal(err)
	}
	return string(c)
}

// TestStateEncoderRedactsLikeTheWholeState: a run's successive states,
// encoded by one stateEncoder (so reusing what did not change), give the
// same documents as redacting each whole state, and no secret survives:
// secrets in new array elements, in changed elements, under secret keys
// nested in tool calls, in plain members and in causes.
func TestStateEncoderRedactsLikeTheWholeState(t *testing.T) {
	r, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	const aws = "AKIAIOSFODNN7EXAMPLE"
	secrets := []string{aws, "t0ps3cret", "hunter2-pw"}
	st := NewState("enc")
	steps := []func(*State){
		func(s *State) { s.Phase = "context" },
		func(s *State) {
			s.Request = &events.Requested{Request: "use key " + aws}
			s.Request.Options.Labels = map[string]string{"token": "t0ps3cret"}
		},
		func(s *State) { s.Attempts = append(s.Attempts, Attempt{Attempt: 1}) },
		func(s *State) {
			s.Attempts[0].ToolCalls = append(s.Attempts[0].ToolCalls, events.ToolExecution{Step: 1, Tool: "run",
				Args: json.RawMessage(`{"cmd":"ls","env":{"password":"hunter2-pw"}}`), Call: json.RawMessage(`{}`)})
		},
		func(s *State) { s.Notes = append(s.Notes, Note{By: "op", Text: "rotated " + aws}) },
		func(s *State) { s.Causes = append(s.Causes, "cause-with-"+aws) },
		func(s *State) { s.Attempts = append(s.Attempts, Attempt{Attempt: 2}) },
		func(s *State) { s.Attempts[1].PlanMode = "key " + aws },
		func(s *State) { s.Notes = nil; s.Request = nil },
		func(s *State) { s.Notes = []Note{{By: "op", Text: "fine"}} },
	}
	enc := &stateEncoder{}
	for i, step := range steps {
		step(&st)
		st.Causes = append(st.Causes, "c"+strings.Repeat("x", i))
		got, err := enc.encode(r, st)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		c, err := rao.CanonicalizeJSON(got)
		if err != nil {
			t.Fatalf("step %d: encoder gave invalid JSON %s: %v", i, got, err)
		}
		if want := wholeRedaction(t, r, st); string(c) != want {
			t.Fatalf("step %d:\n got %s\nwant %s", i, c, want)
		}
		for _, s := range secrets {
			if strings.Contains(string(got), s) {
				t.Fatalf("step %d: secret %q in %s", i, s, got)
			}
		}
	}
	if !strings.Contains(wholeRedaction(t, r, st), "[REDACTED:") {
		t.Fatal("the test states hold no redacted secret: the test proves nothing")
	}
}

// TestStateEncoderWithoutRedactor: no redactor, no redaction.
func TestStateEncoderWithoutRedactor(t *testing.T) {
	st := NewState("plain")
	st.Notes = []Note{{By: "x", Text: "AKIAIOSFODNN7EXAMPLE"}}
	got, err := (&stateEncoder{}).encode(nil, st)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(st)
	if string(got) != string(want) {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestRedactArrayRejectsBadElements: an element that is not JSON is an
// error, never passed on unredacted.
func TestRedactArrayRejectsBadElements(t *testing.T) {
	r, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := redactMember(r, rao.Member{Key: "a", Raw: []byte(`[1,`)}, nil); !errors.Is(err, rao.ErrInvalidJSON) {
		t.Fatalf("err = %v, want ErrInvalidJSON", err)
	}
	if _, err := redactMember(r, rao.Member{Key: "a", Raw: []byte(`{"x":`)}, nil); !errors.Is(err, redact.ErrInvalidJSON) {
		t.Fatalf("err = %v, want redact.ErrInvalidJSON", err)
	}
}
