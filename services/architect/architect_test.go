package architect_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/codex"
	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/pmstate"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/codali-dev/codali/services/architect"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

const project = "hello"

func testCtx(t *testing.T) context.Context { return apptest.Ctx(t) }

// plan1 and plan2 are the scripted plans of attempts 1 and 2.
const plan1 = `{"summary": "Implement Greet", "steps": [{"description": "Return the greeting", "files": ["greet.go"]}],
 "target_files": ["greet.go"], "risks": ["empty names"],
 "verify": [{"name": "go test", "command": ["go", "test", "./..."], "timeout_ms": 120000}]}`

const plan2 = `{"summary": "Greet the world when the name is empty",
 "steps": [{"id": "empty", "description": "Handle the empty name"}, {"description": "Run the tests"}],
 "target_files": ["greet.go"],
 "verify": [{"name": "go test", "command": ["go", "test", "./..."]}, {"name": "go vet", "command": ["go", "vet", "./..."]}]}`

// script builds a scripted-model script from (attempt, step, content)
// triples for the architect.
func script(t *testing.T, answers ...answer) *llm.Script {
	t.Helper()
	s := llm.Script{}
	for _, a := range answers {
		s.Responses = append(s.Responses, llm.ScriptedResponse{Phase: "architect", Attempt: a.attempt, Step: a.step, Content: a.content, Repair: a.repair})
	}
	if len(s.Responses) == 0 { // a script needs one response; give another phase's
		s.Responses = append(s.Responses, llm.ScriptedResponse{Phase: "builder", Content: "{}"})
	}
	raw, _ := json.Marshal(s)
	out, err := llm.ParseScript(raw)
	if err != nil {
		t.Fatalf("script: %v", err)
	}
	return out
}

type answer struct {
	attempt, step int
	content       string
	repair        bool
}

// firstAndRepair are the first answer and the repair turn's answer of
// attempt 1.
func firstAndRepair(first, repair string) []answer {
	return []answer{{1, 1, first, false}, {1, 1, repair, true}}
}

func newDeps(t *testing.T, cfgJSON string, s *llm.Script) *app.Deps {
	t.Helper()
	return apptest.Deps(t, cfgJSON, apptest.Options{Script: s})
}

func handler(t *testing.T, d *app.Deps) worker.Handler {
	t.Helper()
	h, err := architect.New(testCtx(t), d)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func baseRun() events.Run {
	return events.Run{
		Request:    events.Requested{Request: "Make Greet greet", Repo: events.RepoRef{Path: "/srv/hello"}, Options: events.RunOptions{Project: project}},
		Project:    project,
		MaxRetries: 3,
	}
}

var bundle = &events.ContextBundle{
	Queries:  []string{"greet"},
	Files:    []events.FileInfo{{Path: "greet.go", Bytes: 90}},
	Snippets: []events.Snippet{{Path: "greet.go", LineStart: 1, LineEnd: 5, Content: "package hello\n"}},
	Memory:   []events.MemoryItem{{Text: "run go vet", Source: events.MemorySourceProject}},
}

// contextEvent stores the bundle like the librarian does and returns the
// context event; inline controls whether the bundle is also inlined.
func contextEvent(t *testing.T, d *app.Deps, run string, inline bool) events.Envelope {
	t.Helper()
	threshold := 1 << 20
	if !inline {
		threshold = 1
	}
	b, ref, err := d.Artifacts.StoreBundle(testCtx(t), run, 1, bundle, threshold)
	if err != nil {
		t.Fatal(err)
	}
	e, err := events.New(run, events.KindContext, 1, "codali/librarian", t0, events.ContextData{Run: baseRun(), Bundle: b, BundleRef: ref, Summary: "1 files"})
	if err != nil {
		t.Fatal(err)
	}
	e.TraceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	return e
}

func retryEvent(t *testing.T, d *app.Deps, run string, attempt int, prev events.Plan) events.Envelope {
	t.Helper()
	_, ref, err := d.Artifacts.StoreBundle(testCtx(t), run, 1, bundle, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := baseRun()
	r.Failures = []string{"attempt 1: check \"go test\" (go test ./...) exited 1"}
	e, err := events.New(run, events.KindRetry, attempt, "codali/critic", t0, events.RetryData{
		Run: r, BundleRef: ref, Reason: "check \"go test\" (go test ./...) exited 1", Previous: prev,
		Checks: []events.CheckResult{{Name: "go test", Command: []string{"go", "test", "./..."}, ExitCode: 1, Output: "FAIL"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func decodePlan(t *testing.T, outs []events.Envelope, run string, attempt int) events.PlanData {
	t.Helper()
	if len(outs) != 1 {
		t.Fatalf("%d events, want 1", len(outs))
	}
	out := outs[0]
	if k, _ := out.Kind(); k != events.KindPlan || out.Attempt != attempt || out.ID != events.MsgID(run, events.KindPlan, attempt) ||
		out.Source != "codali/architect" || !out.Time.Equal(t0) {
		t.Fatalf("envelope %+v", out)
	}
	var pd events.PlanData
	if err := events.DecodeData(out, &pd); err != nil {
		t.Fatal(err)
	}
	return pd
}

func pmState(t *testing.T, d *app.Deps) (cognition.CognitionState, uint64) {
	t.Helper()
	st, rev, err := d.PM.Get(testCtx(t), project)
	if err != nil {
		t.Fatal(err)
	}
	return st, rev
}

func TestContextBecomesPlan(t *testing.T) {
	cases := []struct {
		name   string
		inline bool
	}{
		{"inline bundle", true},
		{"bundle by reference", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDeps(t, `{}`, script(t, answer{1, 0, plan1, false}, answer{2, 0, plan2, false}))
			in := contextEvent(t, d, "run-a", tc.inline)
			pd := decodePlan(t, mustHandle(t, handler(t, d), in), "run-a", 1)
			if pd.Plan.Summary != "Implement Greet" || len(pd.Plan.Steps) != 1 || pd.Plan.Steps[0].ID != "s1" ||
				len(pd.Plan.Verify) != 1 || pd.Plan.Verify[0].TimeoutMS != 120000 {
				t.Errorf("plan %+v", pd.Plan)
			}
			if tc.inline && pd.Bundle == nil {
				t.Error("the small inline bundle was not passed on")
			}
			// A referenced bundle must stay referenced: TestReferencedBundleStaysReferenced.
			if pd.BundleRef == nil || !strings.HasPrefix(pd.BundleRef.Name, "run-a/1/context_bundle.json/") {
				t.Errorf("bundle ref %+v not passed on", pd.BundleRef)
			}
			st, rev := pmState(t, d)
			if rev == 0 || pd.Run.PMRev != rev {
				t.Errorf("run pm_rev %d, project state revision %d", pd.Run.PMRev, rev)
			}
			goal, ok := st.GoalTree.UserPartition.Find(pmstate.RunGoalID("run-a"))
			if !ok {
				t.Fatalf("run goal missing from %+v", st.GoalTree.UserPartition)
			}
			if goal.Summary != "Implement Greet" || goal.Weight != 100 || len(goal.Children) != 1 ||
				goal.Children[0].NodeID != "run-run-a-s1" || goal.Children[0].Summary != "Return the greeting" {
				t.Errorf("goal %+v", goal)
			}
			if pd.Run.Project != project || pd.Run.MaxRetries != 3 || pd.Run.Request.Request != "Make Greet greet" {
				t.Errorf("run not carried: %+v", pd.Run)
			}
			cs, diags, err := codex.Decode(pd.Run.Codex)
			if err != nil || codex.HasErrors(diags) {
				t.Fatalf("codex: %v %v", err, diags)
			}
			if cs.ProjectContext.Phase.String() != "architect" || slices.Contains(cs.TemporalContext.Actions, "retry") {
				t.Errorf("codex phase %s actions %v", cs.ProjectContext.Phase, cs.TemporalContext.Actions)
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

func TestRetryReplans(t *testing.T) {
	d := newDeps(t, `{}`, script(t, answer{1, 0, plan1, false}, answer{2, 0, plan2, false}))
	h := handler(t, d)
	first := decodePlan(t, mustHandle(t, h, contextEvent(t, d, "run-r", true)), "run-r", 1)
	_, rev1 := pmState(t, d)

	pd := decodePlan(t, mustHandle(t, h, retryEvent(t, d, "run-r", 2, first.Plan)), "run-r", 2)
	if pd.Plan.Summary != "Greet the world when the name is empty" || len(pd.Plan.Steps) != 2 ||
		pd.Plan.Steps[0].ID != "empty" || pd.Plan.Steps[1].ID != "s2" {
		t.Errorf("attempt 2 plan %+v", pd.Plan)
	}
	if pd.Bundle != nil {
		t.Error("a retry's plan should not inline the bundle")
	}
	if pd.BundleRef == nil {
		t.Error("bundle ref lost on retry")
	}
	if len(pd.Run.Failures) != 1 || !strings.Contains(pd.Run.Failures[0], "exited 1") {
		t.Errorf("failures %q not carried", pd.Run.Failures)
	}
	st, rev2 := pmState(t, d)
	if rev2 <= rev1 || pd.Run.PMRev != rev2 {
		t.Errorf("pm_rev: first %d, now %d, run carries %d", rev1, rev2, pd.Run.PMRev)
	}
	var runGoals []cognition.GoalNode
	for _, g := range st.GoalTree.UserPartition.Children {
		if g.NodeID == pmstate.RunGoalID("run-r") {
			runGoals = append(runGoals, g)
		}
	}
	if len(runGoals) != 1 {
		t.Fatalf("%d goals for the run, want 1 (re-sprouted)", len(runGoals))
	}
	g := runGoals[0]
	if g.Summary != pd.Plan.Summary || g.Weight != 200 {
		t.Errorf("run goal %q weight %d, want the new summary and weight 200", g.Summary, g.Weight)
	}
	var kids []string
	for _, c := range g.Children {
		kids = append(kids, c.NodeID+"="+c.Summary)
	}
	if want := []string{"run-run-r-empty=Handle the empty name", "run-run-r-s2=Run the tests"}; !slices.Equal(kids, want) {
		t.Errorf("children %q, want %q (old steps gone)", kids, want)
	}
	if g.Children[0].Weight != 2 || g.Children[1].Weight != 1 {
		t.Errorf("step weights %d, %d, want 2, 1 by order", g.Children[0].Weight, g.Children[1].Weight)
	}
	cs, _, err := codex.Decode(pd.Run.Codex)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(cs.TemporalContext.Actions, "retry") || !slices.Contains(cs.TemporalContext.Anomalies, "verify-failure") {
		t.Errorf("codex actions %v anomalies %v", cs.TemporalContext.Actions, cs.TemporalContext.Anomalies)
	}
}

// TestRetryAtHigherAttemptTilts: the weight grows with the attempt.
func TestRetryAtHigherAttemptTilts(t *testing.T) {
	d := newDeps(t, `{}`, script(t, answer{0, 0, plan2, false}))
	h := handler(t, d)
	var p events.Plan
	for attempt := 2; attempt <= 4; attempt++ {
		pd := decodePlan(t, mustHandle(t, h, retryEvent(t, d, "run-t", attempt, p)), "run-t", attempt)
		p = pd.Plan
		st, _ := pmState(t, d)
		g, ok := st.GoalTree.UserPartition.Find(pmstate.RunGoalID("run-t"))
		if !ok || g.Weight != int32(100*attempt) {
			t.Errorf("attempt %d: goal %+v (found %v), want weight %d", attempt, g, ok, 100*attempt)
		}
	}
}

func TestModelAnswersAreRepaired(t *testing.T) {
	cases := []struct {
		name    string
		answers []answer
		// wantErr is empty when a plan is expected.
		wantErr string
		summary string
	}{
		{"valid at once", []answer{{1, 1, plan1, false}}, "", "Implement Greet"},
		{"prose around the JSON", []answer{{1, 1, "Here is the plan:\n```json\n" + plan1 + "\n```\nGood luck.", false}}, "", "Implement Greet"},
		{"repaired: no JSON", firstAndRepair("I cannot plan this.", plan1), "", "Implement Greet"},
		{"repaired: schema failure", firstAndRepair(`{"summary": "no steps", "steps": [], "verify": []}`, plan2), "", "Greet the world when the name is empty"},
		{"repair still invalid: contract failure", firstAndRepair("nope", `{"steps": [{"description": "x"}], "verify": [{"name": "t", "command": []}]}`),
			"model gave no valid plan: model answer broke its contract", ""},
		{"always the same invalid answer", []answer{{1, 0, `{"summary": "s", "steps": [{"description": ""}], "verify": [{"name": "t", "command": ["go"]}]}`, false}},
			"/steps/0/description", ""},
		{"no scripted answer: rejected", nil, "model rejected the plan request", ""},
		{"no answer for this attempt", []answer{{2, 0, plan1, false}}, "model rejected the plan request", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDeps(t, `{}`, script(t, tc.answers...))
			outs, err := handler(t, d)(testCtx(t), contextEvent(t, d, "run-m", true))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Handle: %v", err)
				}
				if pd := decodePlan(t, outs, "run-m", 1); pd.Plan.Summary != tc.summary {
					t.Errorf("summary %q, want %q", pd.Plan.Summary, tc.summary)
				}
				return
			}
			if err == nil || !errors.Is(err, worker.ErrPermanent) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want a permanent error containing %q", err, tc.wantErr)
			}
			if len(outs) != 0 {
				t.Errorf("events with an error: %+v", outs)
			}
			if _, rev := pmState(t, d); rev != 0 {
				t.Errorf("project state written (rev %d) although no plan was made", rev)
			}
		})
	}
}

func TestHandleErrors(t *testing.T) {
	cases := []struct {
		name      string
		cfg       string
		in        func(t *testing.T, d *app.Deps) events.Envelope
		permanent bool
		want      string
	}{
		{
			name: "wrong event kind",
			cfg:  `{}`,
			in: func(t *testing.T, d *app.Deps) events.Envelope {
				e, _ := events.New("run-e", events.KindBuilt, 1, "codali/builder", t0, map[string]any{"x": 1})
				return e
			},
			permanent: true, want: "does not handle built",
		},
		{
			name: "context without bundle_ref",
			cfg:  `{}`,
			in: func(t *testing.T, d *app.Deps) events.Envelope {
				e, _ := events.New("run-e", events.KindContext, 1, "codali/librarian", t0, events.ContextData{Run: baseRun()})
				return e
			},
			permanent: true, want: "bundle_ref is required",
		},
		{
			name: "retry that is not JSON of a retry",
			cfg:  `{}`,
			in: func(t *testing.T, d *app.Deps) events.Envelope {
				e, _ := events.New("run-e", events.KindRetry, 2, "codali/critic", t0, "text")
				return e
			},
			permanent: true, want: "invalid payload",
		},
		{
			name: "bundle missing from the object store is permanent",
			cfg:  `{}`,
			in: func(t *testing.T, d *app.Deps) events.Envelope {
				ref := &events.ArtifactRef{Bucket: events.BucketArtifacts, Name: "run-e/1/bundle.json", Size: 10, SHA256: strings.Repeat("0", 64)}
				e, _ := events.New("run-e", events.KindContext, 1, "codali/librarian", t0, events.ContextData{Run: baseRun(), BundleRef: ref})
				return e
			},
			permanent: true, want: "could not load the context bundle",
		},
		{
			name: "unreachable model is transient",
			cfg: `{"providers": {"down": {"type": "openai", "baseUrl": "http://127.0.0.1:1/v1", "timeoutMs": 2000}},
			       "routing": {"architect": {"provider": "down", "model": "m"}}}`,
			in: func(t *testing.T, d *app.Deps) events.Envelope {
				return contextEvent(t, d, "run-e", true)
			},
			permanent: false, want: "model unavailable",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDeps(t, tc.cfg, script(t, answer{0, 0, plan1, false}))
			outs, err := handler(t, d)(testCtx(t), tc.in(t, d))
			if err == nil {
				t.Fatalf("no error; events %+v", outs)
			}
			if worker.IsPermanent(err) != tc.permanent {
				t.Errorf("permanent = %v, want %v: %v", worker.IsPermanent(err), tc.permanent, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %q does not mention %q", err, tc.want)
			}
		})
	}
}

// TestReferencedBundleStaysReferenced: when the librarian offloaded the
// bundle (above events.artifactThresholdBytes), the plan event must carry
// only the reference; inlining the loaded bundle can make the plan event
// larger than events.maxEventBytes, and the runtime then fails the run.
func TestReferencedBundleStaysReferenced(t *testing.T) {
	d := newDeps(t, `{"events": {"maxEventBytes": 4096, "artifactThresholdBytes": 1024}}`, script(t, answer{0, 0, plan1, false}))
	big := &events.ContextBundle{Files: []events.FileInfo{{Path: "greet.go", Bytes: 3000}},
		Snippets: []events.Snippet{{Path: "greet.go", LineStart: 1, LineEnd: 60, Content: strings.Repeat("// a long comment line\n", 130)}}}
	inline, ref, err := d.Artifacts.StoreBundle(testCtx(t), "run-big", 1, big, d.Config.Events.ArtifactThresholdBytes)
	if err != nil || inline != nil {
		t.Fatalf("setup: StoreBundle inline=%v err=%v", inline != nil, err)
	}
	in, err := events.New("run-big", events.KindContext, 1, "codali/librarian", t0, events.ContextData{Run: baseRun(), BundleRef: ref})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Encode(d.Config.Events.MaxEventBytes); err != nil {
		t.Fatalf("setup: the context event itself is too large: %v", err)
	}
	pd := decodePlan(t, mustHandle(t, handler(t, d), in), "run-big", 1)
	if pd.BundleRef == nil || *pd.BundleRef != *ref {
		t.Errorf("bundle ref %+v, want %+v", pd.BundleRef, ref)
	}
	if pd.Bundle != nil {
		raw, _ := json.Marshal(pd)
		t.Fatalf("architect inlined the %d-byte bundle it loaded from the object store (threshold %d) into the plan event (%d bytes of data, limit %d)",
			ref.Size, d.Config.Events.ArtifactThresholdBytes, len(raw), d.Config.Events.MaxEventBytes)
	}
}

// TestRedeliveredContextKeepsOneGoal: handling the same context twice
// leaves one run goal with the same children.
func TestRedeliveredContextKeepsOneGoal(t *testing.T) {
	d := newDeps(t, `{}`, script(t, answer{0, 0, plan1, false}))
	h := handler(t, d)
	in := contextEvent(t, d, "run-d", true)
	a := decodePlan(t, mustHandle(t, h, in), "run-d", 1)
	b := decodePlan(t, mustHandle(t, h, in), "run-d", 1)
	if a.Plan.Summary != b.Plan.Summary {
		t.Errorf("plans differ: %q vs %q", a.Plan.Summary, b.Plan.Summary)
	}
	st, _ := pmState(t, d)
	n := 0
	for _, g := range st.GoalTree.UserPartition.Children {
		if g.NodeID == pmstate.RunGoalID("run-d") {
			n++
			if len(g.Children) != 1 || g.Weight != 100 {
				t.Errorf("goal after redelivery %+v", g)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d run goals after a redelivery, want 1", n)
	}
}

func TestParsePlan(t *testing.T) {
	cases := []struct {
		name    string
		answer  string
		wantErr string
		check   func(t *testing.T, p events.Plan)
	}{
		{"plain JSON", plan1, "", func(t *testing.T, p events.Plan) {
			if p.Summary != "Implement Greet" || p.Steps[0].ID != "s1" || !slices.Equal(p.TargetFiles, []string{"greet.go"}) ||
				!slices.Equal(p.Risks, []string{"empty names"}) || !slices.Equal(p.Verify[0].Command, []string{"go", "test", "./..."}) {
				t.Errorf("plan %+v", p)
			}
		}},
		{"ids kept, missing ones numbered by position", plan2, "", func(t *testing.T, p events.Plan) {
			if p.Steps[0].ID != "empty" || p.Steps[1].ID != "s2" {
				t.Errorf("ids %q %q", p.Steps[0].ID, p.Steps[1].ID)
			}
		}},
		{"fenced with prose", "Sure!\n```json\n" + plan1 + "\n```", "", func(t *testing.T, p events.Plan) {
			if p.Summary != "Implement Greet" {
				t.Errorf("plan %+v", p)
			}
		}},
		{"no JSON", "I would rather not.", "JSON", nil},
		{"wrong types", `{"steps": "one", "verify": []}`, "plan JSON", nil},
		{"no steps", `{"summary": "s", "steps": [], "verify": [{"name": "t", "command": ["go"]}]}`, "no steps", nil},
		{"step without description", `{"steps": [{"id": "a"}], "verify": [{"name": "t", "command": ["go"]}]}`, "step 1 has no description", nil},
		{"no verification", `{"steps": [{"description": "a"}]}`, "no verification commands", nil},
		{"empty command", `{"steps": [{"description": "a"}], "verify": [{"name": "t", "command": [""]}]}`, "has no command", nil},
		{"negative timeout", `{"steps": [{"description": "a"}], "verify": [{"name": "t", "command": ["go"], "timeout_ms": -1}]}`, "negative timeout", nil},
		{"every problem reported", `{"steps": [], "verify": []}`, "no steps\nplan: no verification commands", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := architect.ParsePlan(tc.answer)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParsePlan: %v", err)
			}
			tc.check(t, p)
		})
	}
}

func TestGoalOps(t *testing.T) {
	withGoal := func() cognition.CognitionState {
		st, _ := cognition.Apply(cognition.NewState(), []cognition.GoalTreePatchOp{
			cognition.SproutOp(cognition.UserRootID, "run-x", "old", 0),
			cognition.SproutOp("run-x", "run-x-s1", "old step", 1),
		}, nil)
		return st
	}
	two := events.Plan{Summary: "new", Steps: []events.PlanStep{{ID: "a", Description: "first"}, {ID: "b", Description: "second"}}}
	cases := []struct {
		name    string
		cur     cognition.CognitionState
		attempt int
		plan    events.Plan
		want    []cognition.GoalTreePatchOp
	}{
		{"fresh run", cognition.NewState(), 1, two, []cognition.GoalTreePatchOp{
			cognition.SproutOp(cognition.UserRootID, "run-x", "new", 0),
			cognition.SproutOp("run-x", "run-x-a", "first", 2),
			cognition.SproutOp("run-x", "run-x-b", "second", 1),
			cognition.TiltOp("run-x", 100),
		}},
		{"existing goal is pruned first", withGoal(), 3, two, []cognition.GoalTreePatchOp{
			cognition.PruneOp("run-x"),
			cognition.SproutOp(cognition.UserRootID, "run-x", "new", 0),
			cognition.SproutOp("run-x", "run-x-a", "first", 2),
			cognition.SproutOp("run-x", "run-x-b", "second", 1),
			cognition.TiltOp("run-x", 300),
		}},
		{"summary defaults to the run", cognition.NewState(), 1, events.Plan{Steps: []events.PlanStep{{ID: "s1", Description: "d"}}}, []cognition.GoalTreePatchOp{
			cognition.SproutOp(cognition.UserRootID, "run-x", "run x", 0),
			cognition.SproutOp("run-x", "run-x-s1", "d", 1),
			cognition.TiltOp("run-x", 100),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := architect.GoalOps(tc.cur, "x", tc.attempt, tc.plan)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("ops\n got %+v\nwant %+v", got, tc.want)
			}
			next, diags := cognition.Apply(tc.cur, got, nil)
			if len(diags) != 0 {
				t.Errorf("ops do not apply cleanly: %+v", diags)
			}
			g, ok := next.GoalTree.UserPartition.Find("run-x")
			if !ok || g.Weight != int32(100*tc.attempt) || len(g.Children) != len(tc.plan.Steps) {
				t.Errorf("goal after apply %+v", g)
			}
		})
	}
}

func TestRunGoalID(t *testing.T) {
	if got := pmstate.RunGoalID("01abc"); got != "run-01abc" {
		t.Fatalf("RunGoalID = %q", got)
	}
}

func TestComponent(t *testing.T) {
	c := architect.Component()
	if c.Name != events.ServiceArchitect || c.NewHandler == nil {
		t.Fatalf("component %+v", c)
	}
}

// TestNewRejectsAnUnusableModel: a provider that cannot be created is a
// start-up error, not a failure of every run.
func TestNewRejectsAnUnusableModel(t *testing.T) {
	d := newDeps(t, `{"providers": {"keyless": {"type": "openai", "apiKeyEnv": "NO_SUCH_KEY"}},
	       "routing": {"architect": {"provider": "keyless", "model": "m"}}}`, script(t, answer{0, 0, plan1, false}))
	if _, err := architect.New(testCtx(t), d); err == nil || !strings.Contains(err.Error(), "NO_SUCH_KEY") {
		t.Fatalf("err = %v, want a start-up error naming NO_SUCH_KEY", err)
	}
}
