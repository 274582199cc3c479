package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
)

// budgetConfig writes a configuration whose builder writes done.txt in one
// step and is done in the next; limitsJSON goes under "limits".
func budgetConfig(t *testing.T, limitsJSON string) string {
	t.Helper()
	dir := t.TempDir()
	plan := `{"summary":"s","steps":[{"description":"write done.txt"}],"creates":["done.txt"],"verify":[{"name":"done","command":["test","-f","done.txt"]}]}`
	script := `{"responses":[
	  {"phase":"architect","json":` + plan + `},
	  {"phase":"builder","step":1,"json":{"tool_calls":[{"tool":"write_file","args":{"path":"done.txt","content":"x\n"}}]}},
	  {"phase":"builder","step":2,"json":{"done":true,"summary":"ok"}}]}`
	pol := `{"never_touch":[".git/**"],"commands":{"allow":[["test","-f"]]},"destructive":"block","max_changed_lines":100}`
	cfg := fmt.Sprintf(`{"providers":{"fast":{"type":"scripted","script":"script.json","pricing":{"*":{"inputPerMTok":3,"outputPerMTok":15}}}},
	  "routing":{"architect":{"provider":"fast"},"builder":{"provider":"fast"}},
	  "limits":%s,"policy":"policy.json"}`, limitsJSON)
	for name, body := range map[string]string{"script.json": script, "policy.json": pol, "codali.config.json": cfg} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "codali.config.json")
}

func (p *pipeline) summary(t *testing.T, runID string) audit.Summary {
	t.Helper()
	_, out, _ := p.run(t, "runs", "--json", "--limit", "100")
	var list []audit.Summary
	_ = json.Unmarshal([]byte(out), &list)
	for _, s := range list {
		if s.RunID == runID {
			return s
		}
	}
	return audit.Summary{}
}

func TestBudgetPausesThenExtends(t *testing.T) {
	p := startUp(t, budgetConfig(t, `{"maxRetries":0}`))
	verdict := p.verdicts(t)
	// The request's budget (1 token) is spent by the architect: the builder
	// parks before its first model call.
	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "--budget-tokens", "1", "tight budget")
	if code != exitOK {
		t.Fatalf("submit: %d %s", code, errOut)
	}
	runID := strings.TrimSpace(out)
	eventually(t, "the run to park on its budget", func() bool { return p.summary(t, runID).Waiting == "budget_exhausted" })
	s := p.summary(t, runID)
	if s.Spend[events.ServiceArchitect].Tokens == 0 || s.Spend[events.ServiceArchitect].Cost <= 0 {
		t.Fatalf("spend while parked: %+v", s.Spend)
	}
	_, runsOut, _ := p.run(t, "runs")
	if !strings.Contains(runsOut, "waiting: budget_exhausted") || !strings.Contains(runsOut, "architect ") {
		t.Fatalf("codali runs:\n%s", runsOut)
	}
	if code, _, _ := p.run(t, "budget", "extend", runID); code != exitUsage {
		t.Fatalf("extend without an amount: exit %d", code)
	}
	if code, _, _ := p.run(t, "budget", "extend", runID, "--tokens", "-5"); code != exitUsage {
		t.Fatalf("negative extension: exit %d", code)
	}
	p.must(t, "budget", "extend", runID, "--tokens", "1000000", "--by", "frank", "--note", "worth it")
	env, v := verdict(runID)
	if k, _ := env.Kind(); k != events.KindPassed {
		t.Fatalf("after the extension: %s %+v", env.Type, v)
	}
	if v.Run.Spend[events.ServiceBuilder].Tokens == 0 || v.Run.Spend[events.ServiceArchitect].Tokens == 0 ||
		v.Run.BudgetExtra == nil || v.Run.BudgetExtra.Tokens != 1000000 {
		t.Fatalf("terminal event's spend: %+v extra %+v", v.Run.Spend, v.Run.BudgetExtra)
	}
	replay := p.must(t, "rao", "replay", runID, "--json")
	if !strings.Contains(replay, "budget extended (+1000000 tokens") || !strings.Contains(replay, "frank") {
		t.Errorf("history lacks the extension")
	}
	// Extending a run that is not waiting on its budget fails.
	if code, _, errOut := p.run(t, "budget", "extend", runID, "--tokens", "5"); code != exitFailure || !strings.Contains(errOut, "not waiting") {
		t.Fatalf("extending an ended run: %d %s", code, errOut)
	}
}

func TestBudgetTimeoutFailsTheRun(t *testing.T) {
	p := startUp(t, budgetConfig(t, `{"maxRetries":0,"maxRunTokens":1,"approvalTimeoutMs":2000}`))
	verdict := p.verdicts(t)
	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "nobody pays")
	if code != exitOK {
		t.Fatalf("submit: %d %s", code, errOut)
	}
	env, v := verdict(strings.TrimSpace(out))
	if k, _ := env.Kind(); k != events.KindFailed || v.Code != events.CodeApprovalTimeout || !strings.Contains(v.Reason, "budget") {
		t.Fatalf("budget timeout: %s %+v", env.Type, v)
	}
}
