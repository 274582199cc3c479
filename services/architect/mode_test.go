package architect_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/pmstate"
	"github.com/codali-dev/codali/services/architect"
)

func TestRetryToTheBuilderReusesThePlanWithoutAModelCall(t *testing.T) {
	// The script has no architect answer: a model call would fail.
	d := newDeps(t, `{}`, script(t))
	prev, err := architect.ParsePlan(plan1)
	if err != nil {
		t.Fatal(err)
	}
	in := retryEvent(t, d, "run-b", 2, prev)
	var r events.RetryData
	if err := events.DecodeData(in, &r); err != nil {
		t.Fatal(err)
	}
	r.RetryPhase, r.Reasons = events.RetryBuilder, []string{"changed main.go, which the plan neither targets nor declares as created"}
	in, err = events.New("run-b", events.KindRetry, 2, "codali/critic", t0, r)
	if err != nil {
		t.Fatal(err)
	}
	pd := decodePlan(t, mustHandle(t, handler(t, d), in), "run-b", 2)
	if pd.Mode != events.PlanModeReused || pd.Plan.Summary != prev.Summary || !slices.Equal(pd.Feedback, r.Reasons) || len(pd.Usage) != 0 {
		t.Fatalf("plan data %+v", pd)
	}
	if len(pd.Run.Failures) != 1 {
		t.Errorf("failures %q not carried", pd.Run.Failures)
	}
	// The re-emitted plan is recorded in the goal tree like a new one.
	st, _ := pmState(t, d)
	if _, ok := st.GoalTree.UserPartition.Find(pmstate.RunGoalID("run-b")); !ok {
		t.Error("run goal missing")
	}
}

func TestRetryToTheArchitectReplans(t *testing.T) {
	d := newDeps(t, `{}`, script(t, answer{2, 0, plan2, false}))
	prev, _ := architect.ParsePlan(plan1)
	in := retryEvent(t, d, "run-c", 2, prev) // no retry phase: architect
	pd := decodePlan(t, mustHandle(t, handler(t, d), in), "run-c", 2)
	if pd.Mode != events.PlanModePlanned || pd.Plan.Summary == prev.Summary || len(pd.Usage) != 1 || pd.Usage[0].Calls != 1 {
		t.Fatalf("plan data %+v", pd)
	}
	if len(pd.Run.Usage) != 1 || pd.Run.Usage[0].Phase != "architect" {
		t.Errorf("run usage %+v", pd.Run.Usage)
	}
}

func TestFastPath(t *testing.T) {
	files := []events.FileInfo{{Path: "go.mod"}, {Path: "greet.go"}, {Path: "cmd/hello/main.go"}, {Path: "internal/a/util.go"}, {Path: "internal/b/util.go"}}
	goChecks := []string{"go build ./...", "go test ./..."}
	cases := []struct {
		name  string
		req   string
		fast  bool
		files []events.FileInfo
		want  string // the target; "" means no fast path
	}{
		{"small edit of one existing file", "Fix the typo in greet.go", false, files, "greet.go"},
		{"by repository path", "In cmd/hello/main.go, print a newline", false, files, "cmd/hello/main.go"},
		{"by a base name only one file has", "rename nothing, just tweak main.go output", false, files, ""}, // "rename" is not small
		{"by a base name", "tweak the output of main.go", false, files, "cmd/hello/main.go"},
		{"base name of several files is ambiguous", "fix util.go", false, files, ""},
		{"names a file that does not exist", "fix greet.go and farewell.go", false, files, ""},
		{"names two files", "align greet.go with cmd/hello/main.go", false, files, ""},
		{"asks to create a file", "create docs.md next to greet.go", false, files, ""},
		{"too long", "Fix greet.go " + strings.Repeat("please ", 40), false, files, ""},
		{"names no file", "Make Greet greet", false, files, ""},
		{"options.fast lifts the size rule", "Fix greet.go " + strings.Repeat("please ", 40), true, files, "greet.go"},
		{"options.fast still needs one existing file", "make it faster", true, files, ""},
		{"no default checks", "Fix the typo in greet.go", true, []events.FileInfo{{Path: "greet.go"}}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := events.Requested{Request: tc.req, Options: events.RunOptions{Fast: tc.fast}}
			plan, ok := architect.FastPath(req, &events.ContextBundle{Files: tc.files})
			if ok != (tc.want != "") {
				t.Fatalf("fast path %v, want %v (%+v)", ok, tc.want != "", plan)
			}
			if !ok {
				return
			}
			var checks []string
			for _, v := range plan.Verify {
				checks = append(checks, strings.Join(v.Command, " "))
			}
			if err := plan.Validate(); err != nil || len(plan.Steps) != 1 || !slices.Equal(plan.TargetFiles, []string{tc.want}) || !slices.Equal(checks, goChecks) {
				t.Fatalf("plan %+v (%v)", plan, err)
			}
		})
	}
}

func TestDefaultChecks(t *testing.T) {
	for files, want := range map[string]string{
		"Cargo.toml":     "cargo test",
		"package.json":   "npm test",
		"pyproject.toml": "python -m pytest",
		"Makefile":       "make test",
	} {
		got := architect.DefaultChecks([]events.FileInfo{{Path: files}})
		if len(got) != 1 || strings.Join(got[0].Command, " ") != want {
			t.Errorf("%s: %+v, want %s", files, got, want)
		}
	}
}

func TestFastPathMakesNoModelCall(t *testing.T) {
	d := newDeps(t, `{}`, script(t)) // no architect answers
	in := contextEvent(t, d, "run-f", true)
	var cd events.ContextData
	if err := events.DecodeData(in, &cd); err != nil {
		t.Fatal(err)
	}
	cd.Run.Request.Request = "Fix the typo in greet.go"
	cd.Bundle.Files = append(cd.Bundle.Files, events.FileInfo{Path: "go.mod", Bytes: 20})
	in, err := events.New("run-f", events.KindContext, 1, "codali/librarian", t0, cd)
	if err != nil {
		t.Fatal(err)
	}
	pd := decodePlan(t, mustHandle(t, handler(t, d), in), "run-f", 1)
	if pd.Mode != events.PlanModeFast || len(pd.Usage) != 0 || pd.Plan.TargetFiles[0] != "greet.go" {
		t.Fatalf("plan data %+v", pd)
	}
}

// TestEarlierFailuresReachThePlanPrompt runs the architect against an
// in-process Ollama server: the request carries the plan schema in format
// and the prompt carries the failure summaries of earlier runs.
func TestEarlierFailuresReachThePlanPrompt(t *testing.T) {
	var mu sync.Mutex
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("request: %v", err)
		}
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		out, _ := json.Marshal(map[string]any{"model": "planner:7b", "done": true, "prompt_eval_count": 321, "eval_count": 45,
			"message": map[string]string{"role": "assistant", "content": plan1}})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	d := newDeps(t, `{"providers":{"local":{"type":"ollama","baseUrl":"`+srv.URL+`"}},
	  "routing":{"architect":{"provider":"local","model":"planner:7b","temperature":0.4}}}`, script(t))
	if err := d.PM.AddFailure(testCtx(t), project, pmstate.Failure{RunID: "older", Attempt: 2, Intent: "Make Greet greet", Reason: "check go vet exited 1: unreachable code"}, 0); err != nil {
		t.Fatal(err)
	}
	pd := decodePlan(t, mustHandle(t, handler(t, d), contextEvent(t, d, "run-l", true)), "run-l", 1)
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 1 {
		t.Fatalf("%d model requests", len(bodies))
	}
	// The request's message (before the Cortex message) carries it.
	msgs := bodies[0]["messages"].([]any)
	user := msgs[len(msgs)-2].(map[string]any)["content"].(string)
	if !strings.Contains(user, "unreachable code") {
		t.Errorf("the prompt lacks the earlier failure:\n%s", user)
	}
	format, _ := json.Marshal(bodies[0]["format"])
	if !strings.Contains(string(format), `"target_files"`) || bodies[0]["options"].(map[string]any)["temperature"] != 0.4 {
		t.Errorf("format %s options %v: want the plan schema and the route's temperature", format, bodies[0]["options"])
	}
	want := []events.ModelUsage{{Phase: "architect", Provider: "local", Model: "planner:7b", Calls: 1, InputTokens: 321, OutputTokens: 45, DurationMS: pd.Usage[0].DurationMS}}
	if !slices.Equal(pd.Usage, want) {
		t.Errorf("usage %+v, want %+v", pd.Usage, want)
	}
}
