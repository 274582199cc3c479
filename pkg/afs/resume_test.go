package afs

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestResumeSessionContinuesWhereItStopped(t *testing.T) {
	s := newTestSession()
	fail := Outcome{Success: false, Error: "exit code 1"}
	cmd := map[string]any{"command": []string{"go", "test"}}
	for range 3 {
		call(s, "run_command", cmd, fail)
	}
	r, err := ResumeSession(SessionConfig{SessionID: "s", Producer: testProducer, Now: stepClock(t0.Add(time.Hour), time.Second)}, s.Entries())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Metacognition(), s.Metacognition()) || !reflect.DeepEqual(r.Emotions(), s.Emotions()) {
		t.Fatalf("resumed state differs:\n%+v\n%+v", r.Metacognition(), s.Metacognition())
	}
	// The fourth similar call spins in the resumed session as it would
	// have in the first one, and its entries number on.
	if sig := call(r, "run_command", cmd, fail); !sig.Spinning || sig.SimilarActions != 4 {
		t.Fatalf("4th similar call after resume: %+v, want spinning", sig)
	}
	before, all := s.Entries(), r.Entries()
	if len(all) <= len(before) || !reflect.DeepEqual(all[:len(before)], before) || !strings.HasSuffix(all[len(before)].ID, fmt.Sprintf("#%04d", len(before)+1)) {
		t.Fatalf("entries after resume: %d of which %d before, next %s", len(all), len(before), all[len(before)].ID)
	}
	// A fresh session would not spin on it.
	if sig := call(newTestSession(), "run_command", cmd, fail); sig.Spinning {
		t.Fatalf("fresh session spins: %+v", sig)
	}
}

func TestResumeSessionRefusesAnotherSessionsEntries(t *testing.T) {
	s := newTestSession()
	call(s, "read_file", map[string]any{"path": "a.go"}, Outcome{Success: true})
	_, err := ResumeSession(SessionConfig{SessionID: "other", Producer: testProducer}, s.Entries())
	if !errors.Is(err, ErrResume) {
		t.Fatalf("err = %v, want ErrResume", err)
	}
}
