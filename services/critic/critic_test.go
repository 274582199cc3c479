package critic_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/codex"
	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/codali-dev/codali/pkg/workspace"
	"github.com/codali-dev/codali/services/critic"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

const (
	project = "hello"
	awsKey  = "AKIAIOSFODNN7EXAMPLE"
)

// testPolicy allows the cheap commands the checks below use.
const testPolicy = `{
  "commands": {"allow": [["go", "test"], ["go", "vet"], ["grep"], ["false"], ["sleep"], ["no-such-command-xyz"]],
               "flags": {"grep": ["-q", "-r"], "go test": ["-run", "-count"]}},
  "require_approval_for": {"paths": ["**/go.mod"]},
  "destructive": "block",
  "max_changed_lines": 2000
}`

func testCtx(t *testing.T) context.Context { return apptest.Ctx(t) }

// getenv hides CODALI_* variables so the scripted default applies, and
// passes the rest (PATH, HOME, GOCACHE) to verification commands.
func getenv(k string) string {
	if strings.HasPrefix(k, "CODALI_") {
		return ""
	}
	return os.Getenv(k)
}

func newDeps(t *testing.T, cfgJSON string) *app.Deps {
	t.Helper()
	return apptest.Deps(t, cfgJSON, apptest.Options{Getenv: getenv, PolicyJSON: testPolicy})
}

func handler(t *testing.T, d *app.Deps) worker.Handler {
	t.Helper()
	h, err := critic.New(testCtx(t), d)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func copyHello(t *testing.T) string { return apptest.CopyHello(t) }

// change makes the builder's change: a fresh workspace of repo, edits
// (path → content) applied, and the resulting diff.
func change(t *testing.T, repo string, edits map[string]string) events.Change {
	t.Helper()
	m := &workspace.Manager{Root: t.TempDir()}
	ws, err := m.Prepare(testCtx(t), "build", 1, "builder", events.RepoRef{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ws.Close(); err != nil {
			t.Errorf("close workspace: %v", err)
		}
	})
	for rel, content := range edits {
		if err := os.WriteFile(filepath.Join(ws.Dir, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ch, err := ws.Change(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

const goodGreet = "// Package hello greets people.\npackage hello\n\n// Greet returns a greeting for name.\nfunc Greet(name string) string {\n\tif name == \"\" {\n\t\tname = \"world\"\n\t}\n\treturn \"Hello, \" + name + \"!\"\n}\n"

const forgetfulGreet = "// Package hello greets people.\npackage hello\n\n// Greet returns a greeting for name.\nfunc Greet(name string) string {\n\treturn \"Hello, \" + name + \"!\"\n}\n"

func verify(name string, argv ...string) events.VerifyCommand {
	return events.VerifyCommand{Name: name, Command: argv}
}

func built(t *testing.T, run string, attempt int, repo string, maxRetries int, ch events.Change, checks []events.VerifyCommand, tools []events.ToolExecution) events.Envelope {
	t.Helper()
	r := events.Run{
		Request:    events.Requested{Request: "Make Greet greet", Repo: events.RepoRef{Path: repo}, Options: events.RunOptions{Project: project}},
		Project:    project,
		MaxRetries: maxRetries,
	}
	for a := 1; a < attempt; a++ {
		r.Failures = append(r.Failures, "attempt "+strconv.Itoa(a)+": earlier failure")
	}
	e, err := events.New(run, events.KindBuilt, attempt, "codali/builder", t0, events.BuiltData{
		Run: r, Plan: events.Plan{Summary: "plan", Steps: []events.PlanStep{{ID: "s1", Description: "edit"}}, Verify: checks,
			TargetFiles: []string{"greet.go"}, Creates: []string{"notes.txt"}},
		Change: ch, Tools: tools, Summary: "done",
	})
	if err != nil {
		t.Fatal(err)
	}
	e.TraceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	return e
}

func tool(step int, name string, gate events.GateDecision) events.ToolExecution {
	return events.ToolExecution{Step: step, Tool: name, Call: json.RawMessage(`{"tool":"` + name + `"}`), Gate: gate,
		Result: events.ToolResult{OK: !gate.Blocked}}
}

// output checks the single output event's envelope and returns its data.
func output(t *testing.T, outs []events.Envelope, in events.Envelope, kind events.Kind, attempt int) json.RawMessage {
	t.Helper()
	if len(outs) != 1 {
		t.Fatalf("%d events, want 1", len(outs))
	}
	out := outs[0]
	if k, _ := out.Kind(); k != kind || out.Attempt != attempt || out.ID != events.MsgID(in.RunID(), kind, attempt) ||
		out.Source != "codali/critic" || out.TraceParent != in.TraceParent || !out.Time.Equal(t0) {
		t.Fatalf("envelope %s attempt %d id %s source %s, want %s attempt %d", out.Type, out.Attempt, out.ID, out.Source, kind, attempt)
	}
	if _, err := out.Encode(0); err != nil {
		t.Fatalf("output does not encode: %v", err)
	}
	return out.Data
}

func decodeCodex(t *testing.T, payload string) *codex.CognitiveState {
	t.Helper()
	st, diags, err := codex.Decode(payload)
	if err != nil || codex.HasErrors(diags) {
		t.Fatalf("codex %q: %v %v", payload, err, diags)
	}
	return st
}

func memory(t *testing.T, d *app.Deps) []string {
	t.Helper()
	st, _, err := d.PM.Get(testCtx(t), project)
	if err != nil {
		t.Fatal(err)
	}
	return st.L1Memory.Entries
}

func TestPass(t *testing.T) {
	cases := []struct {
		name           string
		tools          []events.ToolExecution
		integrity      string
		wantWarnings   []string
		codexIntegrity codex.Integrity
	}{
		{"clean tool calls: green", []events.ToolExecution{
			tool(1, "read_file", events.GateDecision{}),
			tool(2, "write_file", events.GateDecision{}),
		}, events.IntegrityGreen, nil, codex.IntegrityGreen},
		{"gate warning: amber", []events.ToolExecution{
			tool(1, "write_file", events.GateDecision{Warnings: []string{"requires approval: write to go.mod"}}),
		}, events.IntegrityAmber, []string{"step 1: write_file: requires approval: write to go.mod"}, codex.IntegrityAmber},
		{"blocked tool call: amber", []events.ToolExecution{
			tool(1, "run_command", events.GateDecision{Blocked: true, Reasons: []string{"command not allowed: curl"}}),
			tool(2, "write_file", events.GateDecision{}),
		}, events.IntegrityAmber, []string{"step 1: run_command blocked: command not allowed: curl"}, codex.IntegrityAmber},
	}
	repo := copyHello(t)
	ch := change(t, repo, map[string]string{"greet.go": goodGreet, "notes.txt": "key " + awsKey + "\n"})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDeps(t, `{}`)
			if !d.Sandbox.Isolated() { // no bubblewrap here: every verdict says so
				tc.integrity, tc.codexIntegrity = events.IntegrityAmber, codex.IntegrityAmber
				tc.wantWarnings = append(tc.wantWarnings, app.NoSandboxWarning)
			}
			// The architect's goal for the run, which a pass prunes.
			if _, err := d.PM.Update(testCtx(t), project, func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
				return []cognition.GoalTreePatchOp{cognition.SproutOp(cognition.UserRootID, "run-ok", "plan", 0)}, nil, nil
			}); err != nil {
				t.Fatal(err)
			}
			in := built(t, "ok", 1, repo, 3, ch, []events.VerifyCommand{
				verify("greets", "grep", "-q", "Hello, ", "greet.go"),
				verify("leaks", "grep", "-r", "key", "notes.txt"),
			}, tc.tools)
			raw := output(t, mustHandle(t, handler(t, d), in), in, events.KindPassed, 1)
			var v events.VerdictData
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			if v.Status != events.StatusPassed || v.Phase != "critic" || v.Integrity != tc.integrity || v.Attempts != 1 ||
				v.Reason != "2 of 2 checks passed on attempt 1" {
				t.Errorf("verdict %+v", v)
			}
			if !slices.Equal(v.Warnings, tc.wantWarnings) {
				t.Errorf("warnings %q, want %q", v.Warnings, tc.wantWarnings)
			}
			if len(v.Checks) != 2 || !v.Checks[0].OK || v.Checks[0].ExitCode != 0 || !v.Checks[1].OK {
				t.Errorf("checks %+v", v.Checks)
			}
			if checksJSON, _ := json.Marshal(v.Checks); strings.Contains(string(checksJSON), awsKey) || !strings.Contains(v.Checks[1].Output, "[REDACTED:aws-key]") {
				t.Errorf("check output not redacted: %q", v.Checks[1].Output)
			}
			if v.Change == nil || v.Change.Diff != ch.Diff || v.Plan == nil || v.Plan.Summary != "plan" {
				t.Errorf("change or plan not carried: %+v %+v", v.Change, v.Plan)
			}
			st, rev, err := d.PM.Get(testCtx(t), project)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := st.GoalTree.UserPartition.Find("run-ok"); ok {
				t.Error("the run's goal was not pruned on a pass")
			}
			if v.Run.PMRev != rev {
				t.Errorf("pm_rev %d, want %d", v.Run.PMRev, rev)
			}
			cs := decodeCodex(t, v.Run.Codex)
			if cs.DecisionContext.Integrity != tc.codexIntegrity {
				t.Errorf("codex integrity %s, want %s", cs.DecisionContext.Integrity, tc.codexIntegrity)
			}
		})
	}
}

func TestGoTestOnTheExample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	repo := copyHello(t)
	cases := []struct {
		name  string
		greet string
		kind  events.Kind
	}{
		{"forgets the empty name: retry", forgetfulGreet, events.KindRetry},
		{"complete: passed", goodGreet, events.KindPassed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDeps(t, `{}`)
			in := built(t, "gotest", 1, repo, 3, change(t, repo, map[string]string{"greet.go": tc.greet}),
				[]events.VerifyCommand{{Name: "go test", Command: []string{"go", "test", "./..."}, TimeoutMS: 120000}}, nil)
			attempt := 1
			if tc.kind == events.KindRetry {
				attempt = 2
			}
			outs, err := handler(t, d)(compileCtx(t), in)
			if err != nil {
				t.Fatal(err)
			}
			raw := output(t, outs, in, tc.kind, attempt)
			if tc.kind == events.KindRetry {
				var r events.RetryData
				_ = json.Unmarshal(raw, &r)
				if r.Reason != `check "go test" (go test ./...) exited 1` || !strings.Contains(r.Checks[0].Output, `Greet("") = "Hello, !"`) {
					t.Errorf("retry %q output %q", r.Reason, r.Checks[0].Output)
				}
			}
		})
	}
}

func mustHandle(t *testing.T, h worker.Handler, in events.Envelope) []events.Envelope {
	t.Helper()
	outs, err := h(testCtx(t), in)
	if err != nil {
		t.Fatalf("Handle %s: %v", in.ID, err)
	}
	return outs
}

func TestReject(t *testing.T) {
	repo := copyHello(t)
	good := change(t, repo, map[string]string{"greet.go": goodGreet})
	// A diff against a different base does not apply to repo.
	other := copyHello(t)
	if err := os.WriteFile(filepath.Join(other, "greet.go"), []byte("package hello\n\nfunc Greet(n string) string { return n }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stale := change(t, other, map[string]string{"greet.go": goodGreet})
	cases := []struct {
		name       string
		attempt    int
		maxRetries int
		change     events.Change
		checks     []events.VerifyCommand
		kind       events.Kind
		reason     []string
		check      func(t *testing.T, checks []events.CheckResult)
	}{
		{
			name: "failing check with attempts left: retry", attempt: 1, maxRetries: 3, change: good,
			checks: []events.VerifyCommand{verify("ok", "grep", "-q", "Greet", "greet.go"), verify("missing", "grep", "-q", "Goodbye", "greet.go")},
			kind:   events.KindRetry, reason: []string{`check "missing" (grep -q Goodbye greet.go) exited 1`},
			check: func(t *testing.T, c []events.CheckResult) {
				if len(c) != 2 || !c[0].OK || c[1].OK || c[1].ExitCode != 1 {
					t.Errorf("checks %+v", c)
				}
			},
		},
		{
			name: "last retry used: failed", attempt: 4, maxRetries: 3, change: good,
			checks: []events.VerifyCommand{verify("missing", "grep", "-q", "Goodbye", "greet.go")},
			kind:   events.KindFailed, reason: []string{"verification failed after 4 attempts (retry limit 3)", `check "missing"`},
		},
		{
			name: "no retries allowed: failed on attempt 1", attempt: 1, maxRetries: 0, change: good,
			checks: []events.VerifyCommand{verify("missing", "grep", "-q", "Goodbye", "greet.go")},
			kind:   events.KindFailed, reason: []string{"after 1 attempts (retry limit 0)"},
		},
		{
			name: "empty change: retry", attempt: 1, maxRetries: 3, change: events.Change{},
			checks: []events.VerifyCommand{verify("ok", "grep", "-q", "Greet", "greet.go")},
			kind:   events.KindRetry, reason: []string{"the builder made no change"},
			check: func(t *testing.T, c []events.CheckResult) {
				if len(c) != 0 {
					t.Errorf("checks ran on an empty change: %+v", c)
				}
			},
		},
		{
			name: "empty change at the limit: failed", attempt: 2, maxRetries: 1, change: events.Change{Diff: "  "},
			checks: []events.VerifyCommand{verify("ok", "grep", "-q", "Greet", "greet.go")},
			kind:   events.KindFailed, reason: []string{"no change"},
		},
		{
			name: "diff does not apply", attempt: 1, maxRetries: 3, change: stale,
			checks: []events.VerifyCommand{verify("ok", "grep", "-q", "Greet", "greet.go")},
			kind:   events.KindRetry, reason: []string{"the change does not apply to the repository"},
		},
		{
			name: "verify command blocked by policy", attempt: 1, maxRetries: 3, change: good,
			checks: []events.VerifyCommand{verify("fetch", "curl", "https://example.com"), verify("ok", "grep", "-q", "Greet", "greet.go")},
			kind:   events.KindRetry, reason: []string{`check "fetch" blocked by policy`},
			check: func(t *testing.T, c []events.CheckResult) {
				if len(c) != 2 || c[0].OK || c[0].ExitCode != -1 || !strings.HasPrefix(c[0].Output, "blocked by policy: ") || !c[1].OK {
					t.Errorf("checks %+v", c)
				}
			},
		},
		{
			name: "verify command escaping the workspace is blocked", attempt: 1, maxRetries: 3, change: good,
			checks: []events.VerifyCommand{verify("escape", "grep", "-q", "x", "../../etc/passwd")},
			kind:   events.KindRetry, reason: []string{"blocked by policy"},
		},
		{
			name: "verify command times out", attempt: 1, maxRetries: 3, change: good,
			checks: []events.VerifyCommand{{Name: "slow", Command: []string{"sleep", "10"}, TimeoutMS: 200}},
			kind:   events.KindRetry, reason: []string{`check "slow" (sleep 10) exited -1`},
			check: func(t *testing.T, c []events.CheckResult) {
				if c[0].OK || !strings.Contains(c[0].Output, "killed after") {
					t.Errorf("timed-out check %+v", c[0])
				}
			},
		},
		{
			name: "verify command that does not exist", attempt: 1, maxRetries: 3, change: good,
			checks: []events.VerifyCommand{verify("ghost", "no-such-command-xyz")},
			kind:   events.KindRetry, reason: []string{`check "ghost" (no-such-command-xyz) exited -1`},
			check: func(t *testing.T, c []events.CheckResult) {
				if c[0].OK || c[0].Output == "" {
					t.Errorf("check %+v", c[0])
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDeps(t, `{}`)
			in := built(t, "rj", tc.attempt, repo, tc.maxRetries, tc.change, tc.checks, nil)
			want := tc.attempt
			if tc.kind == events.KindRetry {
				want++
			}
			raw := output(t, mustHandle(t, handler(t, d), in), in, tc.kind, want)
			var reason string
			var run events.Run
			var checks []events.CheckResult
			if tc.kind == events.KindRetry {
				var r events.RetryData
				if err := json.Unmarshal(raw, &r); err != nil {
					t.Fatal(err)
				}
				reason, run, checks = r.Reason, r.Run, r.Checks
				if r.Previous.Summary != "plan" {
					t.Errorf("previous plan %+v", r.Previous)
				}
			} else {
				var v events.VerdictData
				if err := json.Unmarshal(raw, &v); err != nil {
					t.Fatal(err)
				}
				if err := v.Validate(); err != nil || v.Status != events.StatusFailed || v.Integrity != events.IntegrityRed ||
					v.Phase != "critic" || v.Attempts != tc.attempt {
					t.Errorf("verdict %+v (%v)", v, err)
				}
				if cs := decodeCodex(t, v.Run.Codex); cs.DecisionContext.Integrity != codex.IntegrityRed {
					t.Errorf("codex integrity %s", cs.DecisionContext.Integrity)
				}
				reason, run, checks = v.Reason, v.Run, v.Checks
			}
			for _, w := range tc.reason {
				if !strings.Contains(reason, w) {
					t.Errorf("reason %q does not mention %q", reason, w)
				}
			}
			if len(run.Failures) != tc.attempt {
				t.Fatalf("failures %q: want %d (one appended)", run.Failures, tc.attempt)
			}
			if last := run.Failures[len(run.Failures)-1]; !strings.HasPrefix(last, "attempt "+strconv.Itoa(tc.attempt)+": ") ||
				!strings.Contains(last, tc.reason[len(tc.reason)-1]) && tc.kind == events.KindRetry {
				t.Errorf("appended failure %q", last)
			}
			// A lesson only at the third failed attempt (none of these).
			if mem := memory(t, d); len(mem) != 0 {
				t.Errorf("L1 memory %q: want no lesson before 3 failed attempts", mem)
			}
			l, err := d.PM.Learning(testCtx(t), project)
			if err != nil || len(l.Failures) != 1 || l.Failures[0].Attempt != tc.attempt || l.Failures[0].Reason == "" {
				t.Errorf("failure summaries %+v (%v): want this attempt's", l.Failures, err)
			}
			_, rev, _ := d.PM.Get(testCtx(t), project)
			if run.PMRev != rev {
				t.Errorf("run pm_rev %d, project revision %d", run.PMRev, rev)
			}
			if tc.check != nil {
				tc.check(t, checks)
			}
		})
	}
}

// TestRedeliveredFailureLearnsOnce: handling the same built event twice
// (a redelivery) produces the same retry, one failure summary and, at the
// third failed attempt, one L1 memory lesson.
func TestRedeliveredFailureLearnsOnce(t *testing.T) {
	d := newDeps(t, `{}`)
	h := handler(t, d)
	repo := copyHello(t)
	in := built(t, "twice", 3, repo, 3, change(t, repo, map[string]string{"greet.go": goodGreet}),
		[]events.VerifyCommand{verify("missing", "grep", "-q", "Goodbye", "greet.go")}, nil)
	var reasons []string
	for range 2 {
		raw := output(t, mustHandle(t, h, in), in, events.KindRetry, 4)
		var r events.RetryData
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		reasons = append(reasons, r.Reason)
		if len(r.Run.Failures) != 3 {
			t.Errorf("failures %q after a redelivery", r.Run.Failures)
		}
	}
	if reasons[0] != reasons[1] {
		t.Errorf("redelivery changed the reason: %q", reasons)
	}
	mem := memory(t, d)
	if len(mem) != 1 || !strings.Contains(mem[0], "failed 3 attempts") || !strings.Contains(mem[0], "Goodbye") {
		t.Errorf("L1 memory %q: want one lesson after 3 failures", mem)
	}
	if l, _ := d.PM.Learning(testCtx(t), project); len(l.Failures) != 1 {
		t.Errorf("failure summaries %+v: recorded more than once", l.Failures)
	}
	// The fourth failed attempt teaches nothing new.
	in4 := built(t, "twice", 4, repo, 5, change(t, repo, map[string]string{"greet.go": goodGreet}),
		[]events.VerifyCommand{verify("missing", "grep", "-q", "Goodbye", "greet.go")}, nil)
	output(t, mustHandle(t, h, in4), in4, events.KindRetry, 5)
	if mem := memory(t, d); len(mem) != 1 {
		t.Errorf("L1 memory %q: want 1 lesson", mem)
	}
}

// TestLessonAfterConfiguredFailures: memory.lessonAfterFailures sets N,
// and lessons are bounded by memory.maxL1Entries.
func TestLessonAfterConfiguredFailures(t *testing.T) {
	d := newDeps(t, `{"memory": {"maxL1Entries": 2, "lessonAfterFailures": 1}}`)
	h := handler(t, d)
	repo := copyHello(t)
	ch := change(t, repo, map[string]string{"greet.go": goodGreet})
	for i, word := range []string{"Goodbye", "Farewell", "Ciao"} {
		run := "bounded" + strconv.Itoa(i)
		in := built(t, run, 1, repo, 10, ch, []events.VerifyCommand{verify("missing", "grep", "-q", word, "greet.go")}, nil)
		output(t, mustHandle(t, h, in), in, events.KindRetry, 2)
	}
	mem := memory(t, d)
	if len(mem) != 2 || !strings.Contains(mem[0], "Farewell") || !strings.Contains(mem[1], "Ciao") {
		t.Errorf("memory %q: want the 2 newest lessons", mem)
	}
}

func TestOffloadedDiff(t *testing.T) {
	repo := copyHello(t)
	cases := []struct {
		name      string
		ref       func(t *testing.T, d *app.Deps, ch *events.Change)
		permanent bool
		kind      events.Kind
		errText   string
	}{
		{"diff loaded from the object store", func(t *testing.T, d *app.Deps, ch *events.Change) {
			if err := d.Artifacts.OffloadDiff(testCtx(t), "off", 1, ch, 1); err != nil || ch.DiffRef == nil || ch.Diff != "" {
				t.Fatalf("setup: offload %v %+v", err, ch)
			}
		}, false, events.KindPassed, ""},
		{"missing artifact is permanent", func(t *testing.T, d *app.Deps, ch *events.Change) {
			ch.Diff = ""
			ch.DiffRef = &events.ArtifactRef{Bucket: events.BucketArtifacts, Name: "off/1/change.diff", Size: 3, SHA256: strings.Repeat("a", 64)}
		}, true, "", "could not load the change"},
		{"artifact whose content is gone is permanent", func(t *testing.T, d *app.Deps, ch *events.Change) {
			if err := d.Artifacts.OffloadDiff(testCtx(t), "off", 1, ch, 1); err != nil {
				t.Fatal(err)
			}
			natstest.PurgeArtifactChunks(t, testCtx(t), d.JS)
		}, true, "", "artifact lost"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDeps(t, `{}`)
			ch := change(t, repo, map[string]string{"greet.go": goodGreet})
			tc.ref(t, d, &ch)
			in := built(t, "off", 1, repo, 3, ch, []events.VerifyCommand{verify("greets", "grep", "-q", "world", "greet.go")}, nil)
			outs, err := handler(t, d)(testCtx(t), in)
			if tc.errText != "" {
				if err == nil || worker.IsPermanent(err) != tc.permanent || !strings.Contains(err.Error(), tc.errText) {
					t.Fatalf("err = %v, want %q (permanent %v)", err, tc.errText, tc.permanent)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			output(t, outs, in, tc.kind, 1)
		})
	}
}

func TestHandleErrors(t *testing.T) {
	repo := copyHello(t)
	ch := change(t, repo, map[string]string{"greet.go": goodGreet})
	cases := []struct {
		name string
		in   func(t *testing.T) events.Envelope
		want string
	}{
		{"invalid built data", func(t *testing.T) events.Envelope {
			e, _ := events.New("bad", events.KindBuilt, 1, "codali/builder", t0, map[string]any{"plan": "x"})
			return e
		}, "invalid payload"},
		{"plan without verification", func(t *testing.T) events.Envelope {
			return built(t, "bad", 1, repo, 3, ch, nil, nil)
		}, "no verification commands"},
		{"repository gone", func(t *testing.T) events.Envelope {
			return built(t, "bad", 1, filepath.Join(t.TempDir(), "gone"), 3, ch, []events.VerifyCommand{verify("ok", "grep", "x", "greet.go")}, nil)
		}, "repository unavailable"},
	}
	d := newDeps(t, `{}`)
	h := handler(t, d)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			outs, err := h(testCtx(t), tc.in(t))
			if err == nil || !errors.Is(err, worker.ErrPermanent) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a permanent error mentioning %q", err, tc.want)
			}
			if len(outs) != 0 {
				t.Errorf("events with an error: %+v", outs)
			}
		})
	}
}

func TestNewNeedsGit(t *testing.T) {
	d := newDeps(t, `{}`)
	d.Workspaces.Git = "/nonexistent/git"
	if _, err := critic.New(testCtx(t), d); !errors.Is(err, workspace.ErrGit) {
		t.Fatalf("New with a missing git: %v", err)
	}
}

func TestComponent(t *testing.T) {
	c := critic.Component()
	if c.Name != events.ServiceCritic || c.NewHandler == nil {
		t.Fatalf("component %+v", c)
	}
}

// TestFinalFailurePrunesTheRunGoal: once a run has failed for good its
// goal leaves the project's goal tree, so failed runs do not pile up.
func TestFinalFailurePrunesTheRunGoal(t *testing.T) {
	repo := copyHello(t)
	for _, tc := range []struct {
		name       string
		maxRetries int
		kept       bool
	}{{"retry keeps the goal", 3, true}, {"final failure prunes it", 0, false}} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDeps(t, `{}`)
			if _, err := d.PM.Update(testCtx(t), project, func(cur cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
				return []cognition.GoalTreePatchOp{cognition.SproutOp(cognition.UserRootID, "run-goal", "the run", 100)}, nil, nil
			}); err != nil {
				t.Fatal(err)
			}
			in := built(t, "goal", 1, repo, tc.maxRetries, change(t, repo, map[string]string{"greet.go": "package hello\n"}),
				[]events.VerifyCommand{verify("never", "grep", "-q", "no-such-text", "greet.go")}, nil)
			mustHandle(t, handler(t, d), in)
			st, _, err := d.PM.Get(testCtx(t), project)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := st.GoalTree.UserPartition.Find("run-goal"); ok != tc.kept {
				t.Fatalf("goal kept = %v, want %v", ok, tc.kept)
			}
		})
	}
}

// TestChecksFitTheHandlerTime: a check longer than the time left is cut
// short and the attempt fails with a verdict, not a handler timeout.
func TestChecksFitTheHandlerTime(t *testing.T) {
	repo := copyHello(t)
	d := newDeps(t, `{}`)
	in := built(t, "tight", 1, repo, 0, change(t, repo, map[string]string{"greet.go": goodGreet}),
		[]events.VerifyCommand{{Name: "slow", Command: []string{"sleep", "60"}, TimeoutMS: 120000}, verify("after", "grep", "-q", "Greet", "greet.go")}, nil)
	ctx, cancel := context.WithTimeout(testCtx(t), verdictReserveForTest+time.Second)
	defer cancel()
	start := time.Now()
	outs, err := handler(t, d)(ctx, in)
	if err != nil || len(outs) != 1 {
		t.Fatalf("outs %d, err %v", len(outs), err)
	}
	if time.Since(start) > verdictReserveForTest {
		t.Fatalf("the handler ran %s, past its deadline's reserve", time.Since(start))
	}
	var v events.VerdictData
	if err := events.DecodeData(outs[0], &v); err != nil {
		t.Fatal(err)
	}
	if v.Status != events.StatusFailed || len(v.Checks) != 2 || v.Checks[0].OK || !strings.Contains(v.Checks[1].Output, "no time left") {
		t.Fatalf("verdict %+v", v)
	}
}

// verdictReserveForTest mirrors the critic's reserve for the verdict.
const verdictReserveForTest = 5 * time.Second

// TestGateEveryChange: what a change writes is held to the policy before
// any check runs, whatever wrote it (a test run by the builder's model
// writes files no tool call was gated for). A block fails the attempt; an
// approval warning makes the pass amber.
func TestGateEveryChange(t *testing.T) {
	const strict = `{
  "never_touch": [".git/**", "secrets/**"],
  "commands": {"allow": [["grep"]], "flags": {"grep": ["-q"]}},
  "require_approval_for": {"paths": ["**/go.mod", ".github/**"]},
  "destructive": "block",
  "max_changed_lines": 50
}`
	repo := copyHello(t)
	if err := os.MkdirAll(filepath.Join(repo, "secrets"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "secrets", "token"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, ".github", "workflows"), 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		edits    map[string]string
		kind     events.Kind
		reason   string // substring of the retry reason
		warnings []string
	}{
		{"never_touch file", map[string]string{"greet.go": goodGreet, "secrets/token": "stolen\n"}, events.KindRetry,
			"the change breaks the policy: never_touch: secrets/token matches secrets/**", nil},
		{"5000 lines", map[string]string{"greet.go": goodGreet, "big.txt": strings.Repeat("line\n", 5000)}, events.KindRetry,
			"max changed lines exceeded: 50", nil},
		{"workflow", map[string]string{"greet.go": goodGreet, ".github/workflows/ci.yml": "on: push\n"}, events.KindPassed, "",
			[]string{"change: requires approval: write to .github/workflows/ci.yml"}},
		{"go.mod", map[string]string{"greet.go": goodGreet, "go.mod": string(gomod) + "// x\n"}, events.KindPassed, "",
			[]string{"change: requires approval: write to go.mod"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := apptest.Deps(t, `{}`, apptest.Options{Getenv: getenv, PolicyJSON: strict})
			ch := change(t, repo, tc.edits)
			in := built(t, "gate", 1, repo, 3, ch, []events.VerifyCommand{verify("greets", "grep", "-q", "world", "greet.go")}, nil)
			in = withTargets(t, in, slices.Collect(maps.Keys(tc.edits))...)
			attempt := 1
			if tc.kind == events.KindRetry {
				attempt = 2
			}
			raw := output(t, mustHandle(t, handler(t, d), in), in, tc.kind, attempt)
			if tc.kind == events.KindRetry {
				var r events.RetryData
				if err := json.Unmarshal(raw, &r); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(r.Reason, tc.reason) || len(r.Checks) != 1 || r.Checks[0].Name != "policy gate" || r.Checks[0].OK {
					t.Fatalf("retry %q checks %+v, want reason containing %q and only the gate's check", r.Reason, r.Checks, tc.reason)
				}
				return
			}
			var v events.VerdictData
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			if v.Integrity != events.IntegrityAmber || !slices.Equal(v.Warnings, tc.warnings) {
				t.Fatalf("verdict integrity %s warnings %q, want amber with %q", v.Integrity, v.Warnings, tc.warnings)
			}
		})
	}
}

// TestCheckRecordsAreRedactedAndBounded: a plan's check that carries a
// secret or a giant argv is recorded redacted and cut, and the verdict
// still fits in an event.
func TestCheckRecordsAreRedactedAndBounded(t *testing.T) {
	repo := copyHello(t)
	d := newDeps(t, `{}`)
	token := "ghp_" + strings.Repeat("T", 36)
	huge := make([]string, 0, 3000)
	huge = append(huge, "grep", "-q")
	for range 3000 {
		huge = append(huge, strings.Repeat("h", 1000))
	}
	in := built(t, "bounded", 1, repo, 3, change(t, repo, map[string]string{"greet.go": goodGreet}),
		[]events.VerifyCommand{verify("leak "+token, "grep", "-q", token, "greet.go"), {Name: "huge", Command: huge}}, nil)
	raw := output(t, mustHandle(t, handler(t, d), in), in, events.KindRetry, 2)
	var r events.RetryData
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	// The plan is the architect's (it already passed through an event);
	// what the critic adds is the checks and the reason.
	added, _ := json.Marshal(struct {
		Checks []events.CheckResult
		Reason string
	}{r.Checks, r.Reason})
	if strings.Contains(string(added), token) {
		t.Errorf("secret in the critic's checks or reason: %s", added)
	}
	if len(added) > 16<<10 {
		t.Errorf("checks and reason are %d bytes", len(added))
	}
}

// withTargets returns e with files added to its plan's target files, for
// tests whose change deliberately touches more than greet.go (the critic's
// alignment would otherwise send it back to the builder first).
func withTargets(t *testing.T, e events.Envelope, files ...string) events.Envelope {
	t.Helper()
	var bd events.BuiltData
	if err := events.DecodeData(e, &bd); err != nil {
		t.Fatal(err)
	}
	bd.Plan.TargetFiles = append(bd.Plan.TargetFiles, files...)
	out, err := events.New(e.RunID(), events.KindBuilt, e.Attempt, e.Source, e.Time, bd)
	if err != nil {
		t.Fatal(err)
	}
	out.TraceParent = e.TraceParent
	return out
}
