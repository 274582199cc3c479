package builder

import (
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/afs"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
)

// failedRead runs the protocol's steps around a read of a missing file.
func failedRead(proto *protocol, step int) afs.Signals {
	args := json.RawMessage(`{"path":"missing.go"}`)
	id, _ := proto.before("read_file", args)
	return proto.after(id, events.ToolExecution{Step: step, Tool: "read_file", Args: args, Result: events.ToolResult{OK: false, Error: "no such file"}})
}

// A park stores the protocol session with the loop state; the resumed
// attempt continues it: the spin count before the park carries over, and
// the spinning warning given before the park still ends the attempt.
func TestResumedAttemptContinuesTheProtocolSession(t *testing.T) {
	_, x, proto, _, in := loopHarness(t, scripted(t, map[int]string{0: `{"done":true,"summary":"unused"}`}))
	for step := 1; step <= 3; step++ {
		if sig := failedRead(proto, step); sig.Spinning {
			t.Fatalf("spinning at call %d", step)
		}
	}
	entries := len(proto.sess.Entries())
	// Stored with the park and read back, as resume does.
	raw, err := json.Marshal(loopState{Protocol: proto.state()})
	if err != nil {
		t.Fatal(err)
	}
	var st loopState
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	resumed, err := newProtocol(dir, in, testPlan(), "scripted", t0, x.redactor, slog.New(slog.DiscardHandler), x.readable, config.Context{}, st.Protocol, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := resumed.sess.Metacognition().SpinDetection.SimilarActionCount; got != 3 {
		t.Fatalf("similar actions after resume = %d, want 3", got)
	}
	sig := failedRead(resumed, 4)
	if !sig.Spinning || sig.SimilarActions != 4 {
		t.Fatalf("4th similar call after resume: %+v, want spinning", sig)
	}
	if resumed.spin(4, sig) || !strings.Contains(resumed.takeWarning(), "you are spinning") {
		t.Fatal("the first spin after resume must warn, not stop")
	}
	// Parked again and resumed again: the warning given before carries
	// over, so spinning on goes on to stop the attempt.
	again, err := newProtocol(t.TempDir(), in, testPlan(), "scripted", t0, x.redactor, slog.New(slog.DiscardHandler), x.readable, config.Context{}, resumed.state(), false)
	if err != nil {
		t.Fatal(err)
	}
	if !again.spin(5, failedRead(again, 5)) || again.record().Stopped != events.StopSpinning {
		t.Fatal("spinning after the warning, across a resume, must stop the attempt")
	}
	rec := again.record()
	if len(rec.Entries) <= entries || rec.Entries[0].ID != proto.sess.Entries()[0].ID || rec.MaxConsecutiveFailures != 5 {
		t.Fatalf("record after two resumes: %d entries (%d before the park), first %s, failures %d", len(rec.Entries), entries, rec.Entries[0].ID, rec.MaxConsecutiveFailures)
	}
	// The resumed session's history is projected into the new workspace,
	// where it passes the protocol's shape checks.
	if err := afs.Check(filepath.Join(dir, afs.Root)); err != nil {
		t.Fatalf("resumed workspace .context: %v", err)
	}
}

// Stored entries of another session (another run or attempt) are refused:
// the attempt fails rather than continue someone else's session.
func TestResumeRefusesAnotherSessionsEntries(t *testing.T) {
	_, x, proto, _, _ := loopHarness(t, scripted(t, map[int]string{0: `{"done":true,"summary":"unused"}`}))
	failedRead(proto, 1)
	other, err := events.New("run-other", events.KindPlan, 1, "codali/architect", t0(), testPlan())
	if err != nil {
		t.Fatal(err)
	}
	_, err = newProtocol(t.TempDir(), other, testPlan(), "scripted", t0, x.redactor, slog.New(slog.DiscardHandler), x.readable, config.Context{}, proto.state(), false)
	if !errors.Is(err, afs.ErrResume) {
		t.Fatalf("err = %v, want afs.ErrResume", err)
	}
}
