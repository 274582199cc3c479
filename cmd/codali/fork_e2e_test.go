package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
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

// TestForkPassesUnderAChangedPolicy: a run fails because the policy
// blocks its check; under a policy that allows it, a fork from the run's
// plan event builds the recorded plan and passes, and both histories show
// the link.
func TestForkPassesUnderAChangedPolicy(t *testing.T) {
	data := t.TempDir()
	before, after := t.TempDir(), t.TempDir()
	p, stop := startStoppable(t, upOptions{workers: "all", config: forkConfig(t, before, false), data: data})
	verdict := p.verdicts(t)
	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "fork me")
	if code != exitOK {
		t.Fatalf("submit: %d %s", code, errOut)
	}
	parent := strings.TrimSpace(out)
	if env, v := verdict(parent); env.Type != events.KindFailed.Type() {
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
	stop()

	newPolicy := filepath.Join(after, "policy.json")
	p, stop = startStoppable(t, upOptions{workers: "all", config: forkConfig(t, after, true), data: data})
	defer stop()
	verdict = p.verdicts(t)
	if code, _, _ := p.run(t, "rao", "fork", parent+".999"); code == exitOK {
		t.Fatal("forking from an unknown event succeeded")
	}
	code, out, errOut = p.run(t, "rao", "fork", planEvent, "--policy", newPolicy, "--by", "gina")
	if code != exitOK {
		t.Fatalf("fork: %d %s %s", code, out, errOut)
	}
	child := strings.TrimSpace(out)
	if !strings.Contains(errOut, "builds the recorded plan") || !strings.Contains(errOut, "check done (test -f done.txt): allowed") {
		t.Errorf("fork did not report the plan reuse and the simulation: %s", errOut)
	}
	if env, v := verdict(child); env.Type != events.KindPassed.Type() || v.Run.Request.Options.Fork == nil || v.Run.Request.Options.Fork.Run != parent {
		t.Fatalf("child under the new policy: %s %+v", env.Type, v)
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
	linked(parent, "forked as run "+child+" from event "+planEvent+" by gina")
}
