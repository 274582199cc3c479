package recorder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/rao/raostore"
	"github.com/codali-dev/codali/pkg/worker"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// cluster is an embedded server; each recorder process gets its own
// connection and dependencies from it.
type cluster struct {
	srv *bus.Embedded
	cfg string
}

func newCluster(t testing.TB, cfgJSON string) cluster {
	t.Helper()
	srv, _, js := natstest.StartJS(t)
	if err := bus.Provision(testCtx(t), js, bus.Topology{}, nil); err != nil {
		t.Fatalf("provision: %v", err)
	}
	return cluster{srv: srv, cfg: cfgJSON}
}

// process starts a recorder "process": a new connection, new dependencies
// and a new handler.
func (c cluster) process(t testing.TB) (worker.Handler, *app.Deps) {
	t.Helper()
	_, js := natstest.Connect(t, c.srv)
	cfg, err := config.Parse([]byte(c.cfg))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	n := 0
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		n++
		return t0.Add(time.Duration(n) * time.Millisecond)
	}
	d, err := app.NewDeps(testCtx(t), cfg, js, slog.New(slog.DiscardHandler), clock, func(string) string { return "" }, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(testCtx(t), d)
	if err != nil {
		t.Fatal(err)
	}
	return h, d
}

func (c cluster) history(t testing.TB, run string) []rao.Event {
	t.Helper()
	_, js := natstest.Connect(t, c.srv)
	st, err := raostore.Open(testCtx(t), js)
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := st.Load(testCtx(t), run)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func (c cluster) summary(t testing.TB, run string) audit.Summary {
	t.Helper()
	_, js := natstest.Connect(t, c.srv)
	runs, err := audit.OpenRuns(testCtx(t), js)
	if err != nil {
		t.Fatal(err)
	}
	s, err := runs.Get(testCtx(t), run)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func env(t testing.TB, run string, kind events.Kind, attempt int, source string, data any) events.Envelope {
	t.Helper()
	e, err := events.New(run, kind, attempt, source, t0, data)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func gated(t testing.TB, step int, call policy.ToolCall) events.ToolExecution {
	t.Helper()
	p := policy.Default()
	raw, _ := json.Marshal(call)
	d := p.Evaluate(call)
	return events.ToolExecution{Step: step, Tool: call.Tool, Call: raw, Result: events.ToolResult{OK: !d.Blocked},
		Gate: events.GateDecision{Blocked: d.Blocked, Reasons: d.Reasons, Warnings: d.Warnings, PolicyHash: p.Hash(), Evaluator: policy.EvaluatorVersion}}
}

// runEvents is a run that fails attempt 1 and passes attempt 2.
func runEvents(t testing.TB, run string) []events.Envelope {
	t.Helper()
	r := events.Run{Request: events.Requested{Request: "Make Greet greet", Repo: events.RepoRef{Path: "/srv/hello"}}, Project: helloProject, MaxRetries: 3, PMRev: 2}
	plan := events.Plan{Summary: "p", Steps: []events.PlanStep{{ID: "s1", Description: "d"}}, Verify: []events.VerifyCommand{{Name: "t", Command: []string{"go", "test"}}}}
	ref := &events.ArtifactRef{Bucket: events.BucketArtifacts, Name: run + "/1/bundle.json", Size: 1, SHA256: "x"}
	ch := events.Change{Files: []events.FileChange{{Path: "greet.go", Op: "modify"}}, Added: 2, Removed: 1}
	tools := func(a int) []events.ToolExecution {
		return []events.ToolExecution{
			gated(t, 1, policy.ToolCall{Tool: "read_file", Paths: []string{"greet.go"}}),
			gated(t, 2, policy.ToolCall{Tool: "write_file", Paths: []string{"greet.go"}, Writes: true, ChangedLines: a, TotalChangedLines: a}),
		}
	}
	failed := r
	failed.Failures = []string{"attempt 1: go test exited 1"}
	return []events.Envelope{
		env(t, run, events.KindRequested, 1, "agent/test", r.Request),
		env(t, run, events.KindContext, 1, "codali/librarian", events.ContextData{Run: r, BundleRef: ref, Summary: "4 files"}),
		env(t, run, events.KindPlan, 1, "codali/architect", events.PlanData{Run: r, Plan: plan}),
		env(t, run, events.KindBuilt, 1, "codali/builder", events.BuiltData{Run: r, Plan: plan, Change: ch, Tools: tools(1)}),
		env(t, run, events.KindRetry, 2, "codali/critic", events.RetryData{Run: failed, Reason: "go test exited 1", Previous: plan}),
		env(t, run, events.KindPlan, 2, "codali/architect", events.PlanData{Run: failed, Plan: plan}),
		env(t, run, events.KindBuilt, 2, "codali/builder", events.BuiltData{Run: failed, Plan: plan, Change: ch, Tools: tools(2)}),
		env(t, run, events.KindPassed, 2, "codali/critic", events.VerdictData{Run: failed, Status: events.StatusPassed, Phase: "critic",
			Reason: "1 of 1 checks passed on attempt 2", Attempts: 2, Integrity: events.IntegrityGreen}),
	}
}

// stepCount is the number of RAO events a run's pipeline events make.
func stepCount(t testing.TB, evs []events.Envelope) int {
	t.Helper()
	n := 0
	for _, e := range evs {
		steps, err := audit.Fold(e)
		if err != nil {
			t.Fatal(err)
		}
		n += len(steps)
	}
	return n
}

// handle delivers in to h until it succeeds, as the runtime's
// redelivery of transient failures does.
func handle(t testing.TB, h worker.Handler, in events.Envelope) error {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		outs, err := h(testCtx(t), in)
		if err == nil {
			if len(outs) != 0 {
				return fmt.Errorf("recorder produced events: %+v", outs)
			}
			return nil
		}
		if worker.IsPermanent(err) || time.Now().After(deadline) {
			return err
		}
	}
}

// checkRun asserts a contiguous, verifying history of want events with
// every cause once.
func checkRun(t testing.TB, h []rao.Event, want int) {
	t.Helper()
	if len(h) != want {
		t.Errorf("%d events, want %d", len(h), want)
	}
	seen := map[string]bool{}
	for i, e := range h {
		if i > 0 && e.Seq != h[i-1].Seq+1 {
			t.Errorf("gap: seq %d after %d", e.Seq, h[i-1].Seq)
		}
		if seen[e.Cause] {
			t.Errorf("cause %s recorded twice", e.Cause)
		}
		seen[e.Cause] = true
	}
	if rep := rao.Verify(h); !rep.OK() {
		t.Errorf("history does not verify:\n%s", rep)
	}
}

func TestRecordsARun(t *testing.T) {
	c := newCluster(t, `{}`)
	h, d := c.process(t)
	evs := runEvents(t, "run1")
	for i, e := range evs {
		if err := handle(t, h, e); err != nil {
			t.Fatalf("Handle %s: %v", e.ID, err)
		}
		// The summary follows the run.
		s := c.summary(t, "run1")
		if i == 0 && (s.Status != audit.StatusRunning || s.Phase != "requested" || s.Request != "Make Greet greet" || s.Repo != "/srv/hello") {
			t.Errorf("summary after the request %+v", s)
		}
	}
	hist := c.history(t, "run1")
	checkRun(t, hist, stepCount(t, evs))
	s := c.summary(t, "run1")
	if s.Status != audit.StatusPassed || s.Integrity != "green" || s.Attempt != 2 || s.Events != len(hist) || s.Project != helloProject ||
		!s.Created.Equal(hist[0].TS) || !s.Updated.Equal(hist[len(hist)-1].TS) {
		t.Errorf("final summary %+v", s)
	}
	for _, e := range hist {
		if e.Meta.PolicyHash != d.PolicyHash {
			t.Errorf("event %s policy hash %s, want %s", e.ID, e.Meta.PolicyHash, d.PolicyHash)
		}
	}
	// Every event again (a redelivery of everything): nothing new.
	for _, e := range evs {
		if err := handle(t, h, e); err != nil {
			t.Fatal(err)
		}
	}
	if again := c.history(t, "run1"); len(again) != len(hist) {
		t.Errorf("redelivery grew the history from %d to %d", len(hist), len(again))
	}
}

// TestRestartMidRun: the recorder is killed after some events (one of them
// only partly recorded), a new recorder process starts on the same server
// and the unacknowledged event is redelivered to it.
func TestRestartMidRun(t *testing.T) {
	c := newCluster(t, `{"rao": {"checkpointEvery": 3, "maxEvents": 200}}`)
	evs := runEvents(t, "restart")
	first, d1 := c.process(t)
	for _, e := range evs[:3] {
		if err := handle(t, first, e); err != nil {
			t.Fatal(err)
		}
	}
	// Killed while recording the built event: its first tool call is stored.
	steps, err := audit.Fold(evs[3])
	if err != nil {
		t.Fatal(err)
	}
	st, err := raostore.Open(testCtx(t), d1.JS)
	if err != nil {
		t.Fatal(err)
	}
	partial := &audit.Recorder{Store: st, CheckpointEvery: 3, PolicyHash: d1.PolicyHash, Redactor: d1.Redactor, Now: d1.Now}
	if _, _, err := partial.Record(testCtx(t), "restart", steps[:1]); err != nil {
		t.Fatal(err)
	}
	// A new process; the built event (never acknowledged) comes again.
	second, _ := c.process(t)
	for _, e := range evs[3:] {
		if err := handle(t, second, e); err != nil {
			t.Fatalf("Handle %s: %v", e.ID, err)
		}
	}
	// And a late duplicate of an event the first process had acknowledged.
	if err := handle(t, second, evs[1]); err != nil {
		t.Fatal(err)
	}
	checkRun(t, c.history(t, "restart"), stepCount(t, evs))
	if s := c.summary(t, "restart"); s.Status != audit.StatusPassed {
		t.Errorf("summary %+v", s)
	}
}

// TestConcurrentProcesses: two recorder processes get the events of one
// run at the same time (every event reaches both, as after a consumer
// rebalance). Conflicts are retried; the history has each step once.
func TestConcurrentProcesses(t *testing.T) {
	c := newCluster(t, `{}`)
	var evs []events.Envelope
	for _, run := range []string{"c1", "c2"} {
		evs = append(evs, runEvents(t, run)...)
	}
	var wg sync.WaitGroup
	var failures atomic.Int64
	for range 2 {
		h, _ := c.process(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, e := range evs {
				if err := handle(t, h, e); err != nil {
					failures.Add(1)
					t.Errorf("Handle %s: %v", e.ID, err)
				}
			}
		}()
	}
	wg.Wait()
	if failures.Load() > 0 {
		t.FailNow()
	}
	for _, run := range []string{"c1", "c2"} {
		checkRun(t, c.history(t, run), stepCount(t, runEvents(t, run)))
	}
}

func TestCapAndCompaction(t *testing.T) {
	c := newCluster(t, `{"rao": {"checkpointEvery": 2, "maxEvents": 4}}`)
	h, _ := c.process(t)
	evs := runEvents(t, "capped")
	for _, e := range evs {
		if err := handle(t, h, e); err != nil {
			t.Fatal(err)
		}
	}
	hist := c.history(t, "capped")
	if len(hist) > 4 || !hist[0].Checkpoint || hist[0].Seq == 1 {
		t.Fatalf("history of %d events from seq %d (checkpoint %v)", len(hist), hist[0].Seq, hist[0].Checkpoint)
	}
	if last := hist[len(hist)-1].Seq; last != uint64(stepCount(t, evs)) {
		t.Errorf("last seq %d, want %d", last, stepCount(t, evs))
	}
	rep := rao.Verify(hist)
	if !rep.OK() || !rep.Has(hist[0].Seq, rao.BreakCompacted) {
		t.Errorf("verify:\n%s", rep)
	}
	final, err := rao.Replay(hist, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := audit.DecodeState("capped", final)
	if err != nil || st.Status != audit.StatusPassed || len(st.Causes) != stepCount(t, evs) {
		t.Errorf("replayed state %+v (%v)", st, err)
	}
	if s := c.summary(t, "capped"); s.Events != len(hist) || s.Status != audit.StatusPassed {
		t.Errorf("summary %+v", s)
	}
	// The request, compacted away long ago, is redelivered: nothing new.
	if err := handle(t, h, evs[0]); err != nil {
		t.Fatal(err)
	}
	if again := c.history(t, "capped"); again[len(again)-1].Seq != hist[len(hist)-1].Seq {
		t.Error("a compacted event was recorded again")
	}
}

// helloProject is the project of the test runs' repository (the
// recorder refuses events carrying another).
var helloProject = config.DerivedProject(events.RepoRef{Path: "/srv/hello"})

func TestHandleRejects(t *testing.T) {
	c := newCluster(t, `{}`)
	h, _ := c.process(t)
	bad := env(t, "bad", events.KindPlan, 1, "codali/architect", map[string]any{"plan": map[string]any{"steps": []any{}}})
	cases := []struct {
		name string
		in   events.Envelope
	}{
		{"undecodable plan", bad},
		{"unknown kind", func() events.Envelope { e := bad; e.Type = "dev.codali.run.nope"; return e }()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			outs, err := h(testCtx(t), tc.in)
			if !errors.Is(err, worker.ErrPermanent) || len(outs) != 0 {
				t.Fatalf("err = %v, outs %d: want a permanent error", err, len(outs))
			}
			if hist := c.history(t, "bad"); len(hist) != 0 {
				t.Errorf("recorded %d events for an unfoldable event", len(hist))
			}
		})
	}
}

func TestNewNeedsTheStreamAndBucket(t *testing.T) {
	cases := []struct {
		name   string
		remove func(ctx context.Context, d *app.Deps) error
		want   string
	}{
		{"no RAO stream", func(ctx context.Context, d *app.Deps) error { return d.JS.DeleteStream(ctx, events.StreamRAO) }, "RAO"},
		{"no runs bucket", func(ctx context.Context, d *app.Deps) error { return d.JS.DeleteKeyValue(ctx, events.BucketRuns) }, events.BucketRuns},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, `{}`)
			_, d := c.process(t)
			if err := tc.remove(testCtx(t), d); err != nil {
				t.Fatal(err)
			}
			if _, err := New(testCtx(t), d); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: %v, want an error naming %s", err, tc.want)
			}
		})
	}
}

func TestKeyLock(t *testing.T) {
	cases := []struct {
		name string
		keys []string
	}{
		{"one key", []string{"a"}},
		{"several keys", []string{"a", "b", "c"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := newKeyLock()
			inside := make(map[string]*atomic.Int32)
			counts := make(map[string]*int)
			for _, key := range tc.keys {
				inside[key] = &atomic.Int32{}
				counts[key] = new(int)
			}
			var wg sync.WaitGroup
			for g := range 8 {
				for _, key := range tc.keys {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range 50 {
							unlock := k.lock(key)
							if n := inside[key].Add(1); n != 1 {
								t.Errorf("%d holders of key %s (goroutine %d)", n, key, g)
							}
							*counts[key]++ // unsynchronised: the race detector checks the lock
							inside[key].Add(-1)
							unlock()
						}
					}()
				}
			}
			wg.Wait()
			for _, key := range tc.keys {
				if *counts[key] != 8*50 {
					t.Errorf("key %s: %d increments, want %d", key, *counts[key], 8*50)
				}
			}
			k.mu.Lock()
			left := len(k.locks)
			k.mu.Unlock()
			if left != 0 {
				t.Errorf("%d lock entries left after every unlock", left)
			}
		})
	}
}

// TestKeyLockDoesNotBlockOtherKeys: holding one key does not delay
// another.
func TestKeyLockDoesNotBlockOtherKeys(t *testing.T) {
	k := newKeyLock()
	unlockA := k.lock("a")
	defer unlockA()
	done := make(chan struct{})
	go func() {
		unlock := k.lock("b")
		unlock()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("locking b waited for a")
	}
}

func TestComponent(t *testing.T) {
	c := Component()
	if c.Name != events.ServiceRecorder || c.NewHandler == nil {
		t.Fatalf("component %+v", c)
	}
}

// TestMalformedDecisionIsRecordedAsRefused: any agent may publish a
// decision on any run; one whose data is invalid (a reject without a
// note, data naming another call than its id) decides nothing, and the
// run's history records it as refused rather than dropping it.
func TestMalformedDecisionIsRecordedAsRefused(t *testing.T) {
	c := newCluster(t, `{}`)
	h, _ := c.process(t)
	evs := runEvents(t, "decided")[:1]
	if err := handle(t, h, evs[0]); err != nil {
		t.Fatal(err)
	}
	bad := []events.ApprovalDecidedData{
		{Call: "a1-s1-c1", Decision: events.DecisionReject, By: "mallory"},
		{Call: "a1-s1-c2", Decision: events.DecisionApprove, By: "mallory"},
	}
	for _, d := range bad {
		e, err := events.NewKeyed("decided", events.KindApprovalDecided, 1, "a1-s1-c1", "agent/evil", t0, d)
		if err != nil {
			t.Fatal(err)
		}
		if err := handle(t, h, e); err != nil {
			t.Fatalf("Handle %+v: %v", d, err)
		}
	}
	hist := c.history(t, "decided")
	checkRun(t, hist, stepCount(t, evs)+len(bad))
	refused := 0
	for _, e := range hist {
		if strings.HasPrefix(e.Summary, "refused decided.approval_decided.1.a1-s1-c1 from agent/evil") {
			refused++
		}
	}
	if refused != len(bad) {
		t.Fatalf("%d refusals recorded, want %d:\n%+v", refused, len(bad), hist)
	}
}

// TestConflictingDecisionsAreBothRecorded: two decisions on one call
// share their id (the call's), so a second one is stored when its
// publisher sets another Nats-Msg-Id header, or publishes it after the
// duplicate window. The history keeps the first as the call's decision
// and records the second as a late decision that decides nothing (the
// builder acts on the first too); a redelivery of either adds nothing.
func TestConflictingDecisionsAreBothRecorded(t *testing.T) {
	c := newCluster(t, `{}`)
	h, _ := c.process(t)
	evs := runEvents(t, "conflict")[:1]
	var req events.Requested
	if err := events.DecodeData(evs[0], &req); err != nil {
		t.Fatal(err)
	}
	parked, err := events.NewKeyed("conflict", events.KindApprovalRequested, 1, "a1-s1-c1", "codali/builder", t0, events.ApprovalRequestedData{
		Run: events.Run{Request: req, Project: helloProject}, Park: "a1-s1-c1", Deadline: t0.Add(time.Hour), Calls: []events.ApprovalCall{{ID: "a1-s1-c1", Step: 1, Tool: "write_file"}}})
	if err != nil {
		t.Fatal(err)
	}
	decide := func(d events.ApprovalDecidedData) events.Envelope {
		d.Call, d.At = "a1-s1-c1", t0
		e, err := events.NewKeyed("conflict", events.KindApprovalDecided, 1, "a1-s1-c1", "agent/ci", t0, d)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	approve := decide(events.ApprovalDecidedData{Decision: events.DecisionApprove, By: "alice"})
	reject := decide(events.ApprovalDecidedData{Decision: events.DecisionReject, By: "mallory", Note: "no"})
	for _, e := range append(evs, parked, approve, reject, approve, reject) {
		if err := handle(t, h, e); err != nil {
			t.Fatalf("Handle %s: %v", e.ID, err)
		}
	}
	hist := c.history(t, "conflict")
	checkRun(t, hist, stepCount(t, append(evs, parked, approve, reject)))
	var decisions []string
	for _, e := range hist {
		if e.Kind == rao.KindOverride {
			decisions = append(decisions, e.Summary)
		}
	}
	if len(decisions) != 2 || !strings.HasPrefix(decisions[0], "call a1-s1-c1 approved by alice") || !strings.HasPrefix(decisions[1], "call a1-s1-c1 rejected by mallory") {
		t.Fatalf("decisions recorded: %q, want alice's approve then mallory's reject", decisions)
	}
	st := c.state(t, "conflict")
	if len(st.Approvals) != 1 || st.Approvals[0].Decision == nil || st.Approvals[0].Decision.By != "alice" {
		t.Fatalf("approvals: %+v", st.Approvals)
	}
	if len(st.Notes) != 1 || !strings.Contains(st.Notes[0].Text, "late decision on call a1-s1-c1 (rejected): the first one stands") {
		t.Fatalf("notes: %+v", st.Notes)
	}
}

// state is the run's audit state at the end of its stored history.
func (c cluster) state(t testing.TB, run string) audit.State {
	t.Helper()
	hist := c.history(t, run)
	doc, err := rao.Replay(hist, hist[len(hist)-1].Seq)
	if err != nil {
		t.Fatal(err)
	}
	st, err := audit.DecodeState(run, doc)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
