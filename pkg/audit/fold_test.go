package audit_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/rao"
)

// apply folds evs in order into a new state, as the recorder does.
func apply(t *testing.T, run string, evs ...events.Envelope) audit.State {
	t.Helper()
	st := audit.NewState(run)
	for _, e := range evs {
		steps, err := audit.Fold(e)
		if err != nil {
			t.Fatalf("Fold %s: %v", e.ID, err)
		}
		for _, s := range steps {
			s.Mutate(&st)
			st.Causes = append(st.Causes, s.Cause)
		}
	}
	return st
}

func TestFoldEveryKind(t *testing.T) {
	const run = "fold"
	pol := policy.Default()
	evs := runEvents(t, run, pol)
	byID := map[string]events.Envelope{}
	for _, e := range evs {
		byID[e.ID] = e
	}
	r := testRun("hello")
	r.PMRev, r.Codex = 7, "codex-x"
	cases := []struct {
		name string
		// prior events are folded first; ev is the event under test.
		prior []events.Envelope
		ev    events.Envelope
		// want lists the expected steps: cause suffix, kind, summary prefix.
		want  []stepWant
		check func(t *testing.T, st audit.State)
	}{
		{
			name: "requested",
			ev:   byID[run+".requested.1"],
			want: []stepWant{{run + ".requested.1", rao.KindRun, "request received: Make Greet greet", 0, ""}},
			check: func(t *testing.T, st audit.State) {
				if st.Request == nil || st.Request.Request != "Make Greet greet" || st.Phase != "requested" || st.Attempt != 1 || st.Status != audit.StatusRunning {
					t.Errorf("state %+v", st)
				}
			},
		},
		{
			name: "context",
			ev:   byID[run+".context.1"],
			want: []stepWant{{run + ".context.1", rao.KindRun, "librarian context: 4 files indexed", 0, ""}},
			check: func(t *testing.T, st audit.State) {
				if st.Phase != "librarian" || st.Project != "hello" || st.Codex != "codex-"+run || st.Context == nil ||
					st.Context.Summary != "4 files indexed" || st.Context.BundleRef == nil {
					t.Errorf("state %+v", st)
				}
				if st.Request == nil || st.Request.Request != "Make Greet greet" {
					t.Errorf("request not recovered from the context's run: %+v", st.Request)
				}
			},
		},
		{
			name:  "plan",
			prior: evs[:2],
			ev:    byID[run+".plan.1"],
			want:  []stepWant{{run + ".plan.1", rao.KindRun, "architect plan (attempt 1): 1 steps, 1 checks", 1, ""}},
			check: func(t *testing.T, st audit.State) {
				if st.Phase != "architect" || st.Attempt != 1 || len(st.Attempts) != 1 || st.Attempts[0].Plan == nil ||
					st.Attempts[0].Plan.Summary != "Implement Greet" || st.Attempts[0].ToolCalls == nil {
					t.Errorf("state %+v", st)
				}
			},
		},
		{
			name:  "built: one audit step per tool call, then the change",
			prior: evs[:3],
			ev:    byID[run+".built.1"],
			want: []stepWant{
				{run + ".built.1#tool1", rao.KindAudit, "gate (attempt 1, step 1): read_file allowed", 1, pol.Hash()},
				{run + ".built.1#tool2", rao.KindAudit, "gate (attempt 1, step 2): write_file allowed", 1, pol.Hash()},
				{run + ".built.1", rao.KindRun, "builder change (attempt 1): 1 files, +1 -1", 1, ""},
			},
			check: func(t *testing.T, st audit.State) {
				a := st.Attempts[0]
				if len(a.ToolCalls) != 2 || a.ToolCalls[1].Tool != "write_file" || a.Change == nil || a.Change.Added != 1 ||
					a.Change.Summary != "edited" || len(a.Change.Files) != 1 || st.Phase != "builder" {
					t.Errorf("attempt %+v", a)
				}
			},
		},
		{
			name: "built: gate warnings and blocks in the summaries, no files is an empty list",
			ev: envelope(t, run, events.KindBuilt, 3, "codali/builder", events.BuiltData{Run: r, Plan: testPlan, Tools: []events.ToolExecution{
				gatedCall(t, pol, 4, policy.ToolCall{Tool: "write_file", Paths: []string{"go.mod"}, Writes: true, ChangedLines: 1, TotalChangedLines: 1}),
				gatedCall(t, pol, 5, policy.ToolCall{Tool: "run_command", Command: []string{"curl", "x"}}),
			}}),
			want: []stepWant{
				{run + ".built.3#tool1", rao.KindAudit, "gate (attempt 3, step 4): write_file allowed, 1 warning(s)", 7, pol.Hash()},
				{run + ".built.3#tool2", rao.KindAudit, "gate (attempt 3, step 5): run_command BLOCKED", 7, pol.Hash()},
				{run + ".built.3", rao.KindRun, "builder change (attempt 3): 0 files, +0 -0", 7, ""},
			},
			check: func(t *testing.T, st audit.State) {
				raw, _ := json.Marshal(st)
				if !strings.Contains(string(raw), `"files":[]`) {
					t.Errorf("no change should record files as [] : %s", raw)
				}
				if len(st.Attempts) != 1 || st.Attempts[0].Attempt != 3 || st.Attempt != 3 {
					t.Errorf("attempts %+v", st.Attempts)
				}
			},
		},
		{
			name:  "retry",
			prior: evs[:4],
			ev:    byID[run+".retry.2"],
			want:  []stepWant{{run + ".retry.2", rao.KindRun, "critic: attempt 1 rejected, retry as attempt 2 via the architect: go test exited 1", 3, ""}},
			check: func(t *testing.T, st audit.State) {
				if st.Phase != "critic" || st.Attempt != 2 || len(st.Attempts) != 2 || st.Attempts[0].Result == nil ||
					st.Attempts[0].Result.Outcome != "retry" || len(st.Attempts[0].Result.Checks) != 1 || st.Attempts[1].Attempt != 2 {
					t.Errorf("state %+v", st)
				}
			},
		},
		{
			name:  "passed",
			prior: evs[:7],
			ev:    byID[run+".passed.2"],
			want:  []stepWant{{run + ".passed.2", rao.KindRun, "passed (critic, attempt 2, integrity amber): 1 of 1 checks passed on attempt 2", 3, ""}},
			check: func(t *testing.T, st audit.State) {
				if st.Status != audit.StatusPassed || !st.Terminal() || st.Verdict == nil || st.Verdict.Integrity != "amber" ||
					st.Verdict.Attempts != 2 || len(st.Verdict.Warnings) != 1 || st.Attempts[1].Result == nil || st.Attempts[1].Result.Outcome != "passed" {
					t.Errorf("state %+v verdict %+v", st, st.Verdict)
				}
			},
		},
		{
			name: "failed by the critic",
			ev: envelope(t, run, events.KindFailed, 4, "codali/critic", events.VerdictData{Run: r, Status: events.StatusFailed, Phase: "critic",
				Reason: "verification failed after 4 attempts", Attempts: 4, Integrity: events.IntegrityRed}),
			want: []stepWant{{run + ".failed.4", rao.KindRun, "failed (critic, attempt 4, integrity red): verification failed after 4 attempts", 7, ""}},
			check: func(t *testing.T, st audit.State) {
				if st.Status != audit.StatusFailed || st.Phase != "critic" || len(st.Attempts) != 1 || st.Attempts[0].Result.Outcome != "failed" {
					t.Errorf("state %+v", st)
				}
			},
		},
		{
			name: "failed by another phase records no attempt result",
			ev: func() events.Envelope {
				f, err := events.Failed(byID[run+".requested.1"], run, "librarian", "librarian: could not read repository", 1, "codali/librarian", func() time.Time { return t0 })
				if err != nil {
					t.Fatal(err)
				}
				return f
			}(),
			want: []stepWant{{run + ".failed.1", rao.KindRun, "failed (librarian, attempt 1, integrity red): librarian: could not read repository", 0, ""}},
			check: func(t *testing.T, st audit.State) {
				if st.Status != audit.StatusFailed || st.Phase != "librarian" || len(st.Attempts) != 0 || st.Verdict.Phase != "librarian" {
					t.Errorf("state %+v", st)
				}
			},
		},
		{
			name: "operator cancel is an override",
			ev: envelope(t, run, events.KindFailed, 2, audit.OperatorSource, events.VerdictData{Run: r, Status: events.StatusFailed, Phase: "operator",
				Reason: "stop it", Attempts: 2, Integrity: events.IntegrityRed}),
			want: []stepWant{{run + ".failed.2", rao.KindOverride, "operator canceled the run: stop it", 7, ""}},
			check: func(t *testing.T, st audit.State) {
				if st.Status != audit.StatusCancelled || len(st.Overrides) != 1 || st.Verdict.Status != audit.StatusCancelled {
					t.Fatalf("state %+v", st)
				}
				o := st.Overrides[0]
				if o.Action != "cancel" || o.By != audit.OperatorSource || o.Reason != "stop it" || o.TS != "2026-11-22T10:00:00Z" {
					t.Errorf("override %+v", o)
				}
				if len(st.Attempts) != 0 {
					t.Errorf("a cancel recorded an attempt result: %+v", st.Attempts)
				}
			},
		},
		{
			name: "long request is shortened to one line",
			ev: envelope(t, run, events.KindRequested, 1, "agent/test", events.Requested{Request: "line one\n\tline two " + strings.Repeat("x", 200),
				Repo: events.RepoRef{Path: "/r"}}),
			want: []stepWant{{run + ".requested.1", rao.KindRun, "request received: line one line two xxx", 0, ""}},
			check: func(t *testing.T, st audit.State) {
				steps, _ := audit.Fold(envelope(t, run, events.KindRequested, 1, "a", events.Requested{Request: strings.Repeat("y", 300), Repo: events.RepoRef{Path: "/r"}}))
				if s := steps[0].Summary; !strings.HasSuffix(s, "…") || len(s) != len("request received: ")+100+len("…") {
					t.Errorf("summary %q not shortened to 100 characters", s)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			steps, err := audit.Fold(tc.ev)
			if err != nil {
				t.Fatalf("Fold: %v", err)
			}
			if len(steps) != len(tc.want) {
				t.Fatalf("%d steps, want %d", len(steps), len(tc.want))
			}
			for i, w := range tc.want {
				s := steps[i]
				if s.Cause != w.cause || s.Kind != w.kind || !strings.HasPrefix(s.Summary, w.summary) || s.PMRev != w.pmRev ||
					s.PolicyHash != w.policyHash || s.Mutate == nil {
					t.Errorf("step %d = {%s %s %q pm_rev %d policy %q}, want %+v", i, s.Cause, s.Kind, s.Summary, s.PMRev, s.PolicyHash, w)
				}
			}
			st := apply(t, run, append(append([]events.Envelope{}, tc.prior...), tc.ev)...)
			tc.check(t, st)
		})
	}
}

type stepWant struct {
	cause      string
	kind       rao.Kind
	summary    string
	pmRev      uint64
	policyHash string
}

// TestFoldRecordsInvalidRequests: a request that cannot start a run is
// still recorded, so the history shows what was asked.
func TestFoldRecordsInvalidRequests(t *testing.T) {
	cases := []struct {
		name, data, summary string
		hasRequest          bool
	}{
		{"not an object", `"x"`, "request received with unreadable data", false},
		{"invalid", `{"request": "", "repo": {}}`, "invalid request received: request: must not be empty", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := envelope(t, "r", events.KindRequested, 1, "s", map[string]any{})
			e.Data = json.RawMessage(tc.data)
			steps, err := audit.Fold(e)
			if err != nil || len(steps) != 1 {
				t.Fatalf("steps %d, err %v", len(steps), err)
			}
			if !strings.HasPrefix(steps[0].Summary, tc.summary) {
				t.Fatalf("summary %q, want prefix %q", steps[0].Summary, tc.summary)
			}
			st := audit.NewState("r")
			steps[0].Mutate(&st)
			if (st.Request != nil) != tc.hasRequest || st.Phase != "requested" {
				t.Fatalf("state %+v", st)
			}
		})
	}
}

func TestFoldRejects(t *testing.T) {
	bad := func(kind events.Kind, data string) events.Envelope {
		e := envelope(t, "r", kind, 1, "s", map[string]any{})
		e.Data = json.RawMessage(data)
		return e
	}
	cases := []struct {
		name string
		ev   events.Envelope
		want error
	}{
		{"context without bundle_ref", bad(events.KindContext, `{"run": {"request": {"request": "x", "repo": {"path": "/a"}}}}`), events.ErrInvalidPayload},
		{"plan without steps", bad(events.KindPlan, `{"plan": {"steps": [], "verify": []}}`), events.ErrInvalidPayload},
		{"built with a broken plan", bad(events.KindBuilt, `{"plan": 3}`), events.ErrInvalidPayload},
		{"retry not an object", bad(events.KindRetry, `[1]`), events.ErrInvalidPayload},
		{"verdict with a bad status", bad(events.KindPassed, `{"status": "maybe", "integrity": "green"}`), events.ErrInvalidPayload},
		{"verdict with a bad integrity", bad(events.KindFailed, `{"status": "failed", "integrity": "purple"}`), events.ErrInvalidPayload},
		{"unknown type", func() events.Envelope { e := bad(events.KindPlan, `{}`); e.Type = "dev.codali.run.bogus"; return e }(), events.ErrUnknownKind},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			steps, err := audit.Fold(tc.ev)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if steps != nil {
				t.Errorf("steps with an error: %d", len(steps))
			}
		})
	}
}

func TestDecodeState(t *testing.T) {
	cases := []struct {
		name    string
		raw     string
		wantErr bool
		check   func(t *testing.T, st audit.State)
	}{
		{"empty is new", "", false, func(t *testing.T, st audit.State) {
			if st.RunID != "r" || st.Status != audit.StatusRunning || st.Attempts == nil || st.Causes == nil || st.Notes == nil || st.Overrides == nil {
				t.Errorf("%+v", st)
			}
		}},
		{"empty object is new", "{}", false, func(t *testing.T, st audit.State) {
			if st.RunID != "r" || st.Status != audit.StatusRunning || st.Causes == nil || st.Attempts == nil || st.Notes == nil || st.Overrides == nil {
				t.Errorf("%+v", st)
			}
		}},
		{"nulls become empty lists", `{"attempts": null, "causes": null, "overrides": null, "notes": null}`, false, func(t *testing.T, st audit.State) {
			raw, _ := json.Marshal(st)
			if strings.Contains(string(raw), "null") {
				t.Errorf("null in %s", raw)
			}
		}},
		{"fields kept", `{"run_id": "r", "status": "passed", "causes": ["a"]}`, false, func(t *testing.T, st audit.State) {
			if st.Status != audit.StatusPassed || !st.Terminal() || !st.HasCause("a") || st.HasCause("b") {
				t.Errorf("%+v", st)
			}
		}},
		{"not JSON", "{", true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, err := audit.DecodeState("r", []byte(tc.raw))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v", err)
			}
			if tc.check != nil {
				tc.check(t, st)
			}
		})
	}
}

func TestLateVerdictDoesNotOverwriteTheEnd(t *testing.T) {
	st := audit.NewState("r")
	cancel := envelope(t, "r", events.KindFailed, 1, audit.OperatorSource, events.VerdictData{Status: "failed", Phase: "operator", Reason: "cancelled", Integrity: "red", Attempts: 1})
	late := envelope(t, "r", events.KindPassed, 1, "codali/critic", events.VerdictData{Status: "passed", Phase: "critic", Reason: "all checks passed", Integrity: "green", Attempts: 1})
	for _, e := range []events.Envelope{cancel, late} {
		steps, err := audit.Fold(e)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range steps {
			s.Mutate(&st)
		}
	}
	if st.Status != audit.StatusCancelled || st.Verdict.Status != audit.StatusCancelled || len(st.Notes) != 1 || !strings.Contains(st.Notes[0].Text, "late passed") {
		t.Fatalf("state after a late verdict: %+v", st)
	}
}
