package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/policystore"
)

// forkConfig writes a configuration whose check is `test -f done.txt`;
// allowTest decides whether the policy lets the critic run it.
func forkConfig(t *testing.T, dir string, allowTest bool) string {
	t.Helper()
	plan := `{"summary":"s","steps":[{"description":"write done.txt"}],"creates":["done.txt"],"verify":[{"name":"done","command":["test","-f","done.txt"]}]}`
	script := `{"responses":[
	  {"phase":"architect","json":` + plan + `},
	  {"phase":"builder","step":1,"json":{"tool_calls":[{"tool":"write_file","args":{"path":"done.txt","content":"x\n"}}]}},
	  {"phase":"builder","step":2,"json":{"done":true,"summary":"ok"}}]}`
	allow := `[["true"]]`
	if allowTest {
		allow = `[["test","-f"]]`
	}
	pol := `{"never_touch":[".git/**"],"commands":{"allow":` + allow + `},"destructive":"block","max_changed_lines":100}`
	cfg := `{"providers":{"fast":{"type":"scripted","script":"script.json"}},
	  "routing":{"architect":{"provider":"fast"},"builder":{"provider":"fast"}},
	  "limits":{"maxRetries":0},"policy":"policy.json"}`
	for name, body := range map[string]string{"script.json": script, "policy.json": pol, "codali.config.json": cfg} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "codali.config.json")
}

// replayEvents reads a run's history as `rao replay --json` prints it.
func (p *pipeline) replayEvents(t *testing.T, runID string) []eventView {
	t.Helper()
	out := p.must(t, "rao", "replay", runID, "--json")
	var r struct {
		Events []eventView `json:"events"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("replay --json: %v", err)
	}
	return r.Events
}

// TestForkPassesUnderAChangedPolicy: a run fails because the pipeline's
// policy blocks its check; a fork from the run's plan event with --policy
// allowing it really runs under that policy (stored for the child,
// named by digest in its request) and passes, while a fork without
// --policy fails again under the pipeline's policy. Both histories show
// the link and the child's the policy it ran under.
func TestForkPassesUnderAChangedPolicy(t *testing.T) {
	strict, loose := t.TempDir(), t.TempDir()
	p := startUp(t, forkConfig(t, strict, false))
	verdict := p.verdicts(t)
	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "fork me")
	if code != exitOK {
		t.Fatalf("submit: %d %s", code, errOut)
	}
	parent := strings.TrimSpace(out)
	if env, v := verdict(parent); env.Type != events.KindFailed.Type() || !strings.Contains(v.Reason, "blocked by policy") {
		t.Fatalf("parent under the strict policy: %s %+v", env.Type, v)
	}
	var planEvent string
	for _, ev := range p.replayEvents(t, parent) {
		if strings.HasPrefix(ev.Summary, "architect plan") {
			planEvent = ev.ID
		}
	}
	if planEvent == "" {
		t.Fatal("no plan event in the parent's history")
	}
	if code, _, _ := p.run(t, "rao", "fork", parent+".999"); code == exitOK {
		t.Fatal("forking from an unknown event succeeded")
	}
	forkConfig(t, loose, true)
	newPolicy := filepath.Join(loose, "policy.json")
	code, out, errOut = p.run(t, "rao", "fork", planEvent, "--policy", newPolicy, "--by", "gina")
	if code != exitOK {
		t.Fatalf("fork: %d %s %s", code, out, errOut)
	}
	child := strings.TrimSpace(out)
	if !strings.Contains(errOut, "builds the recorded plan") || !strings.Contains(errOut, "check done (test -f done.txt): allowed") {
		t.Errorf("fork did not report the plan reuse and the simulation: %s", errOut)
	}
	doc, err := os.ReadFile(newPolicy)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := policy.Parse(doc, policy.FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	// The document is stored in canonical form: its digest is the policy's hash.
	digest := "sha256:" + stored.Hash()
	env, v := verdict(child)
	if env.Type != events.KindPassed.Type() || v.Run.Request.Options.Fork == nil || v.Run.Request.Options.Fork.Run != parent {
		t.Fatalf("child under the new policy: %s %+v", env.Type, v)
	}
	if pol := v.Run.Request.Options.Policy; pol == nil || pol.Digest != digest {
		t.Errorf("the child's verdict does not name its policy %s: %+v", digest, v.Run.Request.Options.Policy)
	}
	linked := func(run, want string) {
		t.Helper()
		for _, ev := range p.replayEvents(t, run) {
			if strings.Contains(ev.Summary, want) {
				return
			}
		}
		t.Errorf("history of %s lacks %q", run, want)
	}
	linked(child, "fork of run "+parent+" at event "+planEvent)
	linked(child, "under the stored policy "+digest)
	// Every event of the child's history names the policy it ran under,
	// not the pipeline's.
	for _, ev := range p.replayEvents(t, child) {
		if ev.Meta.PolicyHash != stored.Hash() {
			t.Errorf("child event %s (%s) has policy hash %s, want the stored policy's %s", ev.ID, ev.Summary, ev.Meta.PolicyHash, stored.Hash())
		}
	}
	linked(parent, "forked as run "+child+" from event "+planEvent+" by gina")

	// A rerun of the child runs under the child's stored policy too: it
	// passes again on the private pipeline (whose own policy is strict).
	code, out, errOut = p.run(t, "rao", "rerun", child, "--config", forkConfig(t, t.TempDir(), false), "--json")
	if code != exitOK || !strings.Contains(out, `"status": "passed"`) && !strings.Contains(out, `"status":"passed"`) {
		t.Errorf("rerun of the child: %d %s %s", code, out, errOut)
	}

	// Without --policy the fork runs under the pipeline's policy: it fails
	// as the parent did.
	plain := strings.TrimSpace(p.must(t, "rao", "fork", planEvent))
	if env, v := verdict(plain); env.Type != events.KindFailed.Type() || v.Run.Request.Options.Policy != nil {
		t.Fatalf("fork without --policy: %s %+v", env.Type, v)
	}
	// An invalid --policy starts nothing.
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"no_such_field":true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := p.run(t, "rao", "fork", planEvent, "--policy", bad); code == exitOK {
		t.Fatalf("fork with an invalid policy started a run: %s", errOut)
	}
}

// TestRunPolicyRefusals: a request can name a policy by digest, but only
// the operator stores one, for one run: a digest with no stored document
// (an agent trying to choose its own policy), a document altered after it
// was stored, and an invalid one each end the run with the reason, never
// falling back to the pipeline's policy.
func TestRunPolicyRefusals(t *testing.T) {
	p := startUp(t, forkConfig(t, t.TempDir(), true))
	verdict := p.verdicts(t)
	nc, js := p.js(t)
	cl := &client{nc: nc, js: js}
	ctx := context.Background()
	kv, err := js.KeyValue(ctx, events.BucketPolicies)
	if err != nil {
		t.Fatal(err)
	}
	repo := helloRepo(t)
	newRun := func() string {
		t.Helper()
		run, err := events.NewRunID(time.Now(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return run
	}
	submitAs := func(run, digest string) string {
		t.Helper()
		req := events.Requested{Request: "use my policy", Repo: events.RepoRef{Path: repo}, Options: events.RunOptions{Policy: &events.PolicyRef{Digest: digest}}}
		env, err := events.New(run, events.KindRequested, 1, "agent", time.Now(), req)
		if err != nil {
			t.Fatal(err)
		}
		if err := publishRequested(ctx, cl, env); err != nil {
			t.Fatal(err)
		}
		return run
	}
	refused := func(run, want string) {
		t.Helper()
		env, v := verdict(run)
		if env.Type != events.KindFailed.Type() || !strings.Contains(v.Reason, "cannot be used") || !strings.Contains(v.Reason, want) {
			t.Errorf("run %s: %s %q, want a refusal saying %q", run, env.Type, v.Reason, want)
		}
	}
	loose := []byte(`{"commands":{"allow":[["test","-f"]]},"max_changed_lines":100}`)

	// Not stored.
	refused(submitAs(newRun(), policystore.Digest(loose)), "not stored")

	// Stored for another run.
	if _, err := policystore.Put(ctx, js, newRun(), loose); err != nil {
		t.Fatal(err)
	}
	refused(submitAs(newRun(), policystore.Digest(loose)), "not stored")

	// Altered after it was stored, and invalid: written under the key the
	// run will look up (run ids are chosen before the request is sent).
	store := func(run, digest string, doc []byte) {
		t.Helper()
		if _, err := kv.Put(ctx, run+"."+strings.TrimPrefix(digest, "sha256:"), doc); err != nil {
			t.Fatal(err)
		}
	}
	invalid := []byte(`{"no_such_field":true}`)
	for _, c := range []struct {
		want   string
		doc    []byte
		digest string
	}{
		{"digest mismatch", []byte(`{"commands":{"allow":[["sh"]]}}`), policystore.Digest(loose)},
		{"invalid", invalid, policystore.Digest(invalid)},
	} {
		run := newRun()
		store(run, c.digest, c.doc)
		refused(submitAs(run, c.digest), c.want)
	}
}

// TestForkRefusesATamperedHistory: a fork starts from what a run's
// history says; from a history rewritten behind the recorder's back
// (tamperHistory) it fails with the findings, exit 1, and creates
// nothing: no request is published, no policy stored, no link appended
// to the parent's history.
func TestForkRefusesATamperedHistory(t *testing.T) {
	dir := t.TempDir()
	p := startUp(t, forkConfig(t, dir, true))
	run := p.passedRun(t)
	p.tamperHistory(t, run)
	ctx := context.Background()
	_, js := p.js(t)
	lastSeq := func(stream string) uint64 {
		t.Helper()
		s, err := js.Stream(ctx, stream)
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return info.State.LastSeq
	}
	work, history := lastSeq(events.StreamWork), lastSeq(events.StreamRAO)
	code, out, errOut := p.run(t, "rao", "fork", run+".2", "--policy", filepath.Join(dir, "policy.json"), "--by", "mallory")
	if code != exitFailure || out != "" || !strings.Contains(errOut, "the history of run "+run+" does not verify") ||
		!strings.Contains(errOut, "hash_mismatch") {
		t.Fatalf("fork from a tampered history exited %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if w, h := lastSeq(events.StreamWork), lastSeq(events.StreamRAO); w != work || h != history {
		t.Errorf("the refused fork stored messages: work stream %d -> %d, history stream %d -> %d", work, w, history, h)
	}
	kv, err := js.KeyValue(ctx, events.BucketPolicies)
	if err != nil {
		t.Fatal(err)
	}
	if keys, err := kv.ListKeys(ctx); err != nil {
		t.Fatal(err)
	} else {
		for k := range keys.Keys() {
			t.Errorf("the refused fork stored a policy: %s", k)
		}
	}
}

// TestForkAndRerunACompactedHistory: the recorder compacts a history to
// rao.maxEvents (it then starts at a checkpoint after seq 1, which verify
// reports for information only); a history compacted so verifies, and
// rerun and fork, which both require a verified history, accept it.
func TestForkAndRerunACompactedHistory(t *testing.T) {
	dir := t.TempDir()
	cfgPath := forkConfig(t, dir, true)
	raw, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["rao"] = map[string]any{"checkpointEvery": 2, "maxEvents": 4}
	if raw, err = json.Marshal(cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startUp(t, cfgPath)
	run := p.passedRun(t)
	evs := p.replayEvents(t, run)
	if len(evs) == 0 || evs[0].Seq == 1 {
		t.Fatalf("the history was not compacted: %d events, the first at seq %d", len(evs), evs[0].Seq)
	}
	if code, out, errOut := p.run(t, "rao", "verify", run); code != exitOK {
		t.Fatalf("verify of the compacted history: %d %s %s", code, out, errOut)
	}
	if code, out, errOut := p.run(t, "rao", "rerun", run, "--config", cfgPath, "--json"); code != exitOK {
		t.Fatalf("rerun of the compacted history: %d %s %s", code, out, errOut)
	}
	last := evs[len(evs)-1].ID
	code, out, errOut := p.run(t, "rao", "fork", last, "--by", "gina")
	if code != exitOK {
		t.Fatalf("fork of the compacted history at %s: %d %s %s", last, code, out, errOut)
	}
}
