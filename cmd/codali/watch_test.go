package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/progress"
	"github.com/nats-io/nats.go"
)

// feed is a fixed run: its events and progress messages, as the watcher
// receives them.
func feed(t *testing.T) []*nats.Msg {
	t.Helper()
	const run = "01golden0000000000000000000"
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	ev := func(kind events.Kind, attempt int, source string, data any) *nats.Msg {
		e, err := events.New(run, kind, attempt, source, at, data)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := e.Encode(0)
		if err != nil {
			t.Fatal(err)
		}
		return &nats.Msg{Subject: kind.Subject(run), Data: raw}
	}
	seq := map[string]uint64{}
	yes, no := true, false
	pr := func(phase, handling string, m progress.Message) *nats.Msg {
		seq[handling]++
		m.RunID, m.Phase, m.Attempt, m.Handling, m.Seq, m.Time = run, phase, 1, handling, seq[handling], at
		raw, _ := json.Marshal(m)
		return &nats.Msg{Subject: progress.Subject(run, phase), Data: raw}
	}
	plan := events.Plan{Summary: "write done.txt", Steps: []events.PlanStep{{Description: "write it"}}, Verify: []events.VerifyCommand{{Name: "done", Command: []string{"test", "-f", "done.txt"}}}}
	b := run + ".plan.1"
	c := run + ".built.1"
	return []*nats.Msg{
		ev(events.KindRequested, 1, "agent/test", events.Requested{Request: "write done.txt", Repo: events.RepoRef{Path: "/repo"}}),
		ev(events.KindPlan, 1, "codali/architect", events.PlanData{Plan: plan}),
		pr("builder", b, progress.Message{Type: progress.TypePhaseStart}),
		pr("builder", b, progress.Message{Type: progress.TypeStart, Activity: "model", Name: "qwen", Step: 1}),
		pr("builder", b, progress.Message{Type: progress.TypeOutput, Activity: "model", Name: "qwen", Step: 1, Text: `{"tool_calls":`}),
		pr("builder", b, progress.Message{Type: progress.TypeOutput, Activity: "model", Name: "qwen", Step: 1, Text: `[…]}`}),
		pr("builder", b, progress.Message{Type: progress.TypeEnd, Activity: "model", Name: "qwen", Step: 1, OK: &yes}),
		pr("builder", b, progress.Message{Type: progress.TypeStart, Activity: "tool", Name: "write_file", Step: 1}),
		pr("builder", b, progress.Message{Type: progress.TypeEnd, Activity: "tool", Name: "write_file", Step: 1, OK: &yes}),
		pr("builder", b, progress.Message{Type: progress.TypePhaseEnd, OK: &yes}),
		ev(events.KindBuilt, 1, "codali/builder", events.BuiltData{Plan: plan, Change: events.Change{Files: []events.FileChange{{Path: "done.txt", Op: "add"}}, Added: 1}}),
		pr("critic", c, progress.Message{Type: progress.TypePhaseStart}),
		pr("critic", c, progress.Message{Type: progress.TypeStart, Activity: "check", Name: "done", Detail: "test -f done.txt"}),
		pr("critic", c, progress.Message{Type: progress.TypeOutput, Activity: "check", Name: "done", Text: "no such file"}),
		pr("critic", c, progress.Message{Type: progress.TypeEnd, Activity: "check", Name: "done", OK: &no, Error: "exited 1"}),
		pr("critic", c, progress.Message{Type: progress.TypePhaseEnd, OK: &yes}),
		ev(events.KindFailed, 1, "codali/critic", events.VerdictData{Status: events.StatusFailed, Phase: "critic", Reason: "check done failed", Attempts: 1, Integrity: events.IntegrityRed}),
	}
}

func TestWatchJSONLinesGolden(t *testing.T) {
	var lines, text bytes.Buffer
	f := newFollower(&text, false)
	f.lines = &lines
	var terminal bool
	for _, m := range feed(t) {
		if terminal {
			t.Fatal("a message after the terminal event")
		}
		_, terminal = f.message(m, "")
	}
	if !terminal {
		t.Fatal("the terminal event was not recognised")
	}
	golden := filepath.Join("testdata", "watch.jsonl")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, lines.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if lines.String() != string(want) {
		t.Fatalf("watch --json output differs from %s:\n%s", golden, lines.String())
	}
	// Without a terminal the text shows tool calls and checks, and why a
	// check failed with its last output line.
	for _, s := range []string{"· builder: tool write_file (step 1)", "· critic: check done (test -f done.txt)", "✗ critic: check done: exited 1", "last output: no such file"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text output lacks %q:\n%s", s, text.String())
		}
	}
	if strings.Contains(text.String(), "model") {
		t.Errorf("model calls are for the live line only:\n%s", text.String())
	}
}

func TestLiveStatusLine(t *testing.T) {
	var out bytes.Buffer
	f := newFollower(&out, true)
	for _, m := range feed(t)[:6] {
		f.message(m, "")
	}
	if s := f.status(); !strings.Contains(s, "builder: model qwen (step 1) │ …") && !strings.Contains(s, `builder: model qwen (step 1) │ {"tool_calls":[…]}`) {
		t.Fatalf("status %q", s)
	}
	f.tick()
	if !strings.Contains(out.String(), "\r\033[K") {
		t.Fatal("the live line is not redrawn in place")
	}
}
