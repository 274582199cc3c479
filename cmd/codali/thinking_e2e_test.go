package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/pmstate"
)

// thinkingScript scripts three runs, told apart by their request:
//
//   - "write done.txt": attempt 1 also writes stray.txt, which the plan
//     does not name (the critic sends it back to the builder); attempt 2
//     writes done.txt only. There is no architect answer for attempt 2: a
//     model call there would fail the run.
//   - "Fix the done marker in lib.go": the fast path (no architect answer
//     at all matches it); the builder edits lib.go.
//   - "always fail": every attempt fails its check.
//   - "broken plan": the architect never answers with a plan.
const thinkingScript = `{"responses":[
  {"phase":"architect","attempt":1,"contains":"Request:\nwrite done.txt","json":{"summary":"Write the done marker file",
    "steps":[{"description":"write done.txt"}],"creates":["done.txt"],"verify":[{"name":"done","command":["test","-f","done.txt"]}]}},
  {"phase":"builder","attempt":1,"step":1,"contains":"Request:\nwrite done.txt","json":{"tool_calls":[
    {"tool":"write_file","args":{"path":"done.txt","content":"done\n"}},{"tool":"write_file","args":{"path":"stray.txt","content":"x\n"}}]}},
  {"phase":"builder","attempt":2,"step":1,"contains":"Request:\nwrite done.txt","json":{"tool_calls":[
    {"tool":"write_file","args":{"path":"done.txt","content":"done\n"}}]}},
  {"phase":"builder","step":1,"contains":"Request:\nFix the done marker","json":{"tool_calls":[
    {"tool":"edit_file","args":{"path":"lib.go","old":"not done","new":"done"}}]}},
  {"phase":"architect","contains":"Request:\nalways fail","json":{"summary":"Never","steps":[{"description":"try"}],
    "creates":["try.txt"],"verify":[{"name":"never","command":["test","-f","never.txt"]}]}},
  {"phase":"builder","step":1,"contains":"Request:\nalways fail","json":{"tool_calls":[{"tool":"write_file","args":{"path":"try.txt","content":"x\n"}}]}},
  {"phase":"builder","step":2,"json":{"done":true,"summary":"ok"}},
  {"phase":"architect","contains":"Request:\nbroken plan","content":"I would rather not plan."},
  {"phase":"critic","json":{"status":"pass","reasons":[],"retryable":false,"review_notes":"looks right"}}]}`

// thinkingConfig writes a Go repository and a configuration routing every
// role to the script.
func thinkingConfig(t *testing.T) (cfg, repo string) {
	t.Helper()
	dir := t.TempDir()
	repo = filepath.Join(dir, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		filepath.Join(repo, "go.mod"):     "module example.com/lib\n\ngo 1.21\n",
		filepath.Join(repo, "lib.go"):     "// Package lib has a marker.\npackage lib\n\n// Marker says how far it got.\nconst Marker = \"not done\"\n",
		filepath.Join(dir, "script.json"): thinkingScript,
		filepath.Join(dir, "policy.json"): `{"never_touch":[".git/**"],"commands":{"allow":[["test","-f"],["go","build"],["go","test"]]},"destructive":"block","max_changed_lines":100}`,
		filepath.Join(dir, "codali.config.json"): `{"providers":{"s":{"type":"scripted","script":"script.json"}},
		  "routing":{"architect":{"provider":"s","model":"planner"},"builder":{"provider":"s","model":"coder"},"critic":{"provider":"s","model":"judge"}},
		  "policy":"policy.json"}`,
	} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "codali.config.json"), repo
}

// submitAndWait runs one request to its end and returns the terminal event.
func submitAndWait(t *testing.T, p *pipeline, repo string, args ...string) (events.Envelope, events.VerdictData) {
	t.Helper()
	full := append([]string{"submit", "--repo", repo, "--wait", "--json", "--timeout", "5m"}, args...)
	_, out, errOut := p.run(t, full...)
	if strings.TrimSpace(out) == "" {
		t.Fatalf("submit printed nothing\nstderr:\n%s\nservices:\n%s", errOut, p.log.String())
	}
	return decodeTerminal(t, out)
}

func usageOf(list []events.ModelUsage, phase string) events.ModelUsage {
	for _, u := range list {
		if u.Phase == phase {
			return u
		}
	}
	return events.ModelUsage{}
}

func TestPhasesThinkEndToEnd(t *testing.T) {
	cfg, repo := thinkingConfig(t)
	p := startUp(t, cfg)
	_, js := p.js(t)
	ctx := context.Background()

	// 1. A retry to the builder: the same plan, no architect model call.
	env, v := submitAndWait(t, p, repo, "write done.txt")
	run1 := env.RunID()
	if v.Status != events.StatusPassed || v.Attempts != 2 || v.Review == nil || v.Review.Status != events.ReviewPass || v.Alignment == nil || !v.Alignment.OK {
		t.Fatalf("run 1: %+v\nservices:\n%s", v, p.log.String())
	}
	if a := usageOf(v.Run.Usage, "architect"); a.Calls != 1 || a.Provider != "s" {
		t.Errorf("architect usage %+v: want exactly one call (attempt 1)", a)
	}
	if b := usageOf(v.Run.Usage, "builder"); b.Calls != 4 || b.InputTokens == 0 {
		t.Errorf("builder usage %+v: want 4 calls", b)
	}
	total := events.TotalUsage(v.Run.Usage)
	if v.UsageTotal == nil || *v.UsageTotal != total || total.Calls != 6 {
		t.Errorf("usage total %+v, want the sum %+v of 6 calls (architect 1, builder 4, critic 1)", v.UsageTotal, total)
	}
	_, replay, _ := p.run(t, "rao", "replay", run1)
	for _, want := range []string{"retry as attempt 2 via the builder", "re-emitted the plan to the builder (attempt 2) with 1 critic reason(s), no model call"} {
		if !strings.Contains(replay, want) {
			t.Errorf("history lacks %q:\n%s", want, replay)
		}
	}
	if _, out, _ := p.run(t, "runs"); !strings.Contains(out, "TOKENS IN/OUT") || !strings.Contains(out, run1) {
		t.Errorf("runs:\n%s", out)
	}

	// 2. The fast path, and the golden example of run 1 in its bundle.
	env, v = submitAndWait(t, p, repo, "Fix the done marker in lib.go")
	run2 := env.RunID()
	if v.Status != events.StatusPassed || v.Attempts != 1 || usageOf(v.Run.Usage, "architect").Calls != 0 {
		t.Fatalf("run 2: %+v\nservices:\n%s", v, p.log.String())
	}
	if v.Plan == nil || len(v.Plan.Verify) != 2 || v.Plan.Verify[1].Command[1] != "test" {
		t.Errorf("fast-path plan %+v: want the repository's default checks", v.Plan)
	}
	_, replay, _ = p.run(t, "rao", "replay", run2)
	if !strings.Contains(replay, "architect fast path (attempt 1): one-step plan without a model call") {
		t.Errorf("history does not record the fast path:\n%s", replay)
	}
	// The bundle as the librarian stored it, found through the history.
	_, out, _ := p.run(t, "rao", "replay", run2, "--json")
	var rep struct {
		State struct {
			Context struct {
				BundleRef *events.ArtifactRef `json:"bundle_ref"`
			} `json:"context"`
		} `json:"state"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.State.Context.BundleRef == nil {
		t.Fatalf("replay --json: %v\n%s", err, out)
	}
	store, err := artifacts.Open(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	bundle, err := store.LoadBundle(ctx, nil, rep.State.Context.BundleRef)
	if err != nil {
		t.Fatal(err)
	}
	cd := events.ContextData{Bundle: bundle}
	if len(cd.Bundle.GoldenExamples) != 1 || cd.Bundle.GoldenExamples[0].Intent != "write done.txt" ||
		!strings.Contains(cd.Bundle.GoldenExamples[0].Patch, "add done.txt") {
		t.Errorf("golden examples in run 2's bundle: %+v", cd.Bundle.GoldenExamples)
	}

	// 3. A lesson after 3 failed attempts; then an explicit correction.
	env, v = submitAndWait(t, p, repo, "--max-retries", "2", "always fail")
	run3 := env.RunID()
	if v.Status != events.StatusFailed || v.Attempts != 3 {
		t.Fatalf("run 3: %+v", v)
	}
	kv, err := js.KeyValue(ctx, events.BucketPMState)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := pmstate.ProjectKey(v.Run.Project)
	entry, err := kv.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(entry.Value()), "always fail: failed 3 attempts"); n != 1 {
		t.Errorf("%d lessons after 3 failures in %s", n, entry.Value())
	}
	if code, out, errOut := p.run(t, "rao", "correct", run3, "--note", "never.txt is created by make, not by hand", "--by", "ana"); code != exitOK {
		t.Fatalf("rao correct: %d %s %s", code, out, errOut)
	}
	if entry, _ = kv.Get(ctx, key); !strings.Contains(string(entry.Value()), "always fail: correction by ana: never.txt is created by make") {
		t.Errorf("no lesson from the correction in %s", entry.Value())
	}
	if code, _, errOut := p.run(t, "rao", "correct", run3); code != exitUsage || !strings.Contains(errOut, "--note") {
		t.Errorf("correct without a note: %d %s", code, errOut)
	}
	if code, _, errOut := p.run(t, "rao", "correct", "01nosuchrun0000000000000000", "--note", "x"); code == exitOK {
		t.Errorf("correct of an unknown run: %d %s", code, errOut)
	}
	_, replay, _ = p.run(t, "rao", "replay", run3)
	if !strings.Contains(replay, "override") || !strings.Contains(replay, "correction by ana") {
		t.Errorf("history lacks the correction override:\n%s", replay)
	}
	// 4. A contract failure: the repair turn, then a failed run that still
	// accounts for both calls.
	_, v = submitAndWait(t, p, repo, "broken plan")
	if v.Status != events.StatusFailed || !strings.Contains(v.Reason, "broke its contract") || !strings.Contains(v.Reason, "no JSON object") ||
		v.UsageTotal == nil || v.UsageTotal.Calls != 2 || usageOf(v.Run.Usage, "architect").Calls != 2 {
		t.Errorf("run 4: %+v", v)
	}
	if m := p.metrics(t); !strings.Contains(m, `codali_model_tokens_total{direction="output",model="scripted",phase="critic",provider="s"}`) {
		t.Errorf("no critic token metric:\n%s", m)
	}
}
