package audit_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/rao/raostore"
	"github.com/codali-dev/codali/pkg/redact"
	"github.com/nats-io/nats.go/jetstream"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// tick is a deterministic clock advancing one millisecond per call.
func tick() func() time.Time {
	n := 0
	return func() time.Time {
		n++
		return t0.Add(time.Duration(n) * time.Millisecond)
	}
}

// server is an embedded JetStream server with Codali's streams and buckets.
type server struct {
	srv *bus.Embedded
	js  jetstream.JetStream
}

func startServer(t *testing.T) server {
	t.Helper()
	srv, _, js := natstest.StartJS(t)
	if err := bus.Provision(testCtx(t), js, bus.Topology{}, nil); err != nil {
		t.Fatalf("provision: %v", err)
	}
	return server{srv: srv, js: js}
}

// store opens a raostore.Store over a new connection to the server, as a
// separate recorder process would.
func (s server) store(t *testing.T) *raostore.Store {
	t.Helper()
	_, js := natstest.Connect(t, s.srv)
	st, err := raostore.Open(testCtx(t), js)
	if err != nil {
		t.Fatalf("raostore.Open: %v", err)
	}
	return st
}

func newRecorder(t *testing.T, st audit.Store, every, maxEvents int) *audit.Recorder {
	t.Helper()
	r, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &audit.Recorder{Store: st, CheckpointEvery: every, MaxEvents: maxEvents,
		PolicyHash: policy.Default().Hash(), ContractHash: "c0ffee", Redactor: r, Now: tick()}
}

func envelope(t *testing.T, run string, kind events.Kind, attempt int, source string, data any) events.Envelope {
	t.Helper()
	e, err := events.New(run, kind, attempt, source, t0, data)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// gatedCall is a tool execution as the builder records it: the call the
// gate saw and the decision of pol.
func gatedCall(t *testing.T, pol *policy.Policy, step int, call policy.ToolCall) events.ToolExecution {
	t.Helper()
	raw, err := json.Marshal(call)
	if err != nil {
		t.Fatal(err)
	}
	d := pol.Evaluate(call)
	return events.ToolExecution{Step: step, Tool: call.Tool, Call: raw,
		Gate:   events.GateDecision{Blocked: d.Blocked, Reasons: d.Reasons, Warnings: d.Warnings, PolicyHash: pol.Hash(), Evaluator: policy.EvaluatorVersion},
		Result: events.ToolResult{OK: !d.Blocked}}
}

func testRun(project string) events.Run {
	return events.Run{
		Request:    events.Requested{Request: "Make Greet greet", Repo: events.RepoRef{Path: "/srv/hello"}, Options: events.RunOptions{Project: project}},
		Project:    project,
		MaxRetries: 3,
	}
}

var testPlan = events.Plan{Summary: "Implement Greet", Steps: []events.PlanStep{{ID: "s1", Description: "edit greet.go"}},
	Verify: []events.VerifyCommand{{Name: "go test", Command: []string{"go", "test", "./..."}}}}

// runEvents returns the pipeline events of a run that passes on attempt 2,
// with the tool calls gated by pol.
func runEvents(t *testing.T, run string, pol *policy.Policy) []events.Envelope {
	t.Helper()
	r := testRun("hello")
	withRev := func(rev uint64) events.Run { x := r; x.PMRev = rev; x.Codex = "codex-" + run; return x }
	ref := &events.ArtifactRef{Bucket: events.BucketArtifacts, Name: run + "/1/bundle.json", Size: 10, SHA256: "ab"}
	tools1 := []events.ToolExecution{
		gatedCall(t, pol, 1, policy.ToolCall{Tool: "read_file", Paths: []string{"greet.go"}}),
		gatedCall(t, pol, 2, policy.ToolCall{Tool: "write_file", Paths: []string{"keys/server.pem"}, Writes: true, ChangedLines: 3, TotalChangedLines: 3}),
	}
	tools2 := []events.ToolExecution{
		gatedCall(t, pol, 1, policy.ToolCall{Tool: "edit_file", Paths: []string{"greet.go"}, Writes: true, ChangedLines: 4, TotalChangedLines: 4}),
		gatedCall(t, pol, 2, policy.ToolCall{Tool: "run_command", Command: []string{"go", "test", "./..."}}),
		gatedCall(t, pol, 3, policy.ToolCall{Tool: "run_command", Command: []string{"curl", "https://example.com"}}),
	}
	ch := events.Change{Diff: "diff --git a/greet.go b/greet.go\n", Files: []events.FileChange{{Path: "greet.go", Op: "modify"}}, Added: 1, Removed: 1}
	checks := []events.CheckResult{{Name: "go test", Command: []string{"go", "test", "./..."}, ExitCode: 1, Output: "FAIL"}}
	failed := withRev(3)
	failed.Failures = []string{"attempt 1: go test exited 1"}
	return []events.Envelope{
		envelope(t, run, events.KindRequested, 1, "agent/test", r.Request),
		envelope(t, run, events.KindContext, 1, "codali/librarian", events.ContextData{Run: withRev(0), BundleRef: ref, Summary: "4 files indexed"}),
		envelope(t, run, events.KindPlan, 1, "codali/architect", events.PlanData{Run: withRev(1), Plan: testPlan, BundleRef: ref}),
		envelope(t, run, events.KindBuilt, 1, "codali/builder", events.BuiltData{Run: withRev(1), Plan: testPlan, Change: ch, Tools: tools1, Summary: "edited"}),
		envelope(t, run, events.KindRetry, 2, "codali/critic", events.RetryData{Run: failed, Reason: "go test exited 1", Checks: checks, Previous: testPlan}),
		envelope(t, run, events.KindPlan, 2, "codali/architect", events.PlanData{Run: failed, Plan: testPlan}),
		envelope(t, run, events.KindBuilt, 2, "codali/builder", events.BuiltData{Run: failed, Plan: testPlan, Change: ch, Tools: tools2}),
		envelope(t, run, events.KindPassed, 2, "codali/critic", events.VerdictData{Run: failed, Status: events.StatusPassed, Phase: "critic",
			Reason: "1 of 1 checks passed on attempt 2", Attempts: 2, Integrity: events.IntegrityAmber, Warnings: []string{"step 3: run_command blocked"}}),
	}
}

// allSteps folds every event.
func allSteps(t *testing.T, evs []events.Envelope) [][]audit.Step {
	t.Helper()
	var out [][]audit.Step
	for _, e := range evs {
		steps, err := audit.Fold(e)
		if err != nil {
			t.Fatalf("Fold %s: %v", e.ID, err)
		}
		out = append(out, steps)
	}
	return out
}

// checkHistory asserts that history is contiguous, verifies, replays to
// the final state, and records every cause in causes exactly once.
func checkHistory(t *testing.T, history []rao.Event, causes []string) {
	t.Helper()
	if len(history) == 0 {
		t.Fatal("empty history")
	}
	for i := 1; i < len(history); i++ {
		if history[i].Seq != history[i-1].Seq+1 {
			t.Fatalf("history not contiguous at %d: seq %d after %d", i, history[i].Seq, history[i-1].Seq)
		}
	}
	if rep := rao.Verify(history); !rep.OK() {
		t.Fatalf("history does not verify:\n%s", rep)
	}
	if _, err := rao.Replay(history, 0); err != nil {
		t.Fatalf("history does not replay: %v", err)
	}
	if history[0].Seq != 1 {
		return // compacted: earlier causes are gone from the events
	}
	seen := map[string]int{}
	for _, e := range history {
		seen[e.Cause]++
	}
	for _, c := range causes {
		if seen[c] != 1 {
			t.Errorf("cause %s recorded %d times, want once", c, seen[c])
		}
	}
	if len(history) != len(causes) {
		t.Errorf("%d events for %d causes", len(history), len(causes))
	}
}

func causesOf(steps [][]audit.Step) []string {
	var out []string
	for _, ss := range steps {
		for _, s := range ss {
			out = append(out, s.Cause)
		}
	}
	return out
}
