package builder_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/changegate"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/services/builder"
)

// A test the model runs with an allowlisted `go test` writes files no tool
// call was gated for: a never_touch file, a workflow, go.mod and 5,000
// lines. The builder's change gate records every one of them.
const sneakyTest = `package hello

import (
	"os"
	"strings"
	"testing"
)

func TestSneaky(t *testing.T) {
	_ = os.MkdirAll(".github/workflows", 0o755)
	_ = os.WriteFile(".github/workflows/ci.yml", []byte("on: push\n"), 0o644)
	_ = os.WriteFile("secrets/token", []byte("stolen\n"), 0o644)
	gomod, _ := os.ReadFile("go.mod")
	_ = os.WriteFile("go.mod", append(gomod, "// x\n"...), 0o644)
	_ = os.WriteFile("big.txt", []byte(strings.Repeat("line\n", 5000)), 0o644)
}
`

func TestBuilderGatesTheFinishedChange(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	repo := apptest.CopyHello(t)
	for name, body := range map[string]string{"sneaky_test.go": sneakyTest, "secrets/token": "old\n"} {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script, err := llm.ParseScript([]byte(`{"responses":[
	  {"phase":"builder","step":1,"json":{"tool_calls":[{"tool":"run_command","args":{"command":["go","test","./..."]}}]}},
	  {"phase":"builder","step":2,"json":{"done":true,"summary":"ran the tests"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	pol := `{"never_touch":[".git/**","secrets/**"],"commands":{"allow":[["go","test"]]},
	  "require_approval_for":{"paths":["**/go.mod",".github/**"]},"destructive":"block","max_changed_lines":50}`
	getenv := func(k string) string {
		if strings.HasPrefix(k, "CODALI_") {
			return ""
		}
		return os.Getenv(k)
	}
	d := apptest.Deps(t, `{}`, apptest.Options{Script: script, Getenv: getenv, PolicyJSON: pol})
	h, err := builder.New(apptest.Ctx(t), d)
	if err != nil {
		t.Fatal(err)
	}
	plan := events.Plan{Summary: "p", Steps: []events.PlanStep{{ID: "s1", Description: "test"}},
		Verify: []events.VerifyCommand{{Name: "t", Command: []string{"go", "test", "./..."}}}}
	in, err := events.New("gatebuild", events.KindPlan, 1, "codali/architect", apptest.Now(), events.PlanData{
		Run:  events.Run{Request: events.Requested{Request: "r", Repo: events.RepoRef{Path: repo}}, Project: "hello", MaxRetries: 1},
		Plan: plan, Bundle: &events.ContextBundle{},
	})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := h(apptest.Ctx(t), in)
	if err != nil || len(outs) != 1 {
		t.Fatalf("Handle: %v (%d events)", err, len(outs))
	}
	var bd events.BuiltData
	if err := events.DecodeData(outs[0], &bd); err != nil {
		t.Fatal(err)
	}
	if len(bd.Tools) == 0 || !bd.Tools[0].Result.OK {
		t.Fatalf("go test did not run: %+v", bd.Tools)
	}
	var gate []events.ToolExecution
	for _, rec := range bd.Tools {
		if rec.Gate.Stage == events.GateStageChange {
			gate = append(gate, rec)
		}
	}
	v, w := changegate.Violations(gate), changegate.Warnings(gate)
	for _, want := range []string{"never_touch: secrets/token matches secrets/**", "max changed lines exceeded: "} {
		if !slices.ContainsFunc(v, func(r string) bool { return strings.HasPrefix(r, want) }) {
			t.Errorf("change gate violations %q lack %q", v, want)
		}
	}
	for _, want := range []string{"requires approval: write to .github/workflows/ci.yml", "requires approval: write to go.mod"} {
		if !slices.Contains(w, want) {
			t.Errorf("change gate warnings %q lack %q", w, want)
		}
	}
	if blocked, _ := events.GateCounts(bd.Tools); blocked == 0 {
		t.Error("the blocked change is not counted")
	}
}
