package builder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/redact"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/afs"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/policy"
)

// recorder is a scripted provider that keeps every request.
type recorder struct {
	inner llm.Provider
	mu    sync.Mutex
	reqs  []llm.Request
}

func (r *recorder) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.inner.Complete(ctx, req)
}

func scripted(t *testing.T, answers map[int]string) *recorder {
	t.Helper()
	var s llm.Script
	for step, a := range answers {
		s.Responses = append(s.Responses, llm.ScriptedResponse{Phase: events.ServiceBuilder, Step: step, Content: a})
	}
	raw, _ := json.Marshal(s)
	sc, err := llm.ParseScript(raw)
	if err != nil {
		t.Fatal(err)
	}
	return &recorder{inner: llm.NewScripted(sc)}
}

func testPlan() events.PlanData {
	return events.PlanData{
		Run: events.Run{Request: events.Requested{Request: "Fix main"}, Project: "demo"},
		Plan: events.Plan{Summary: "Edit main.go", Steps: []events.PlanStep{{Description: "change main"}}, Risks: []string{"none known"},
			Verify: []events.VerifyCommand{{Name: "test", Command: []string{"go", "test", "./..."}}}},
	}
}

func loopHarness(t *testing.T, p llm.Provider) (*Service, *executor, *protocol, string, events.Envelope) {
	t.Helper()
	cfg, err := config.Parse([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	d := apptest.Deps(t, `{}`, apptest.Options{})
	d.Config = cfg
	route, err := cfg.Route(events.ServiceBuilder, d.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	d.SetModel(route.Name, p)
	s := &Service{d: d}
	x, dir := newExecutor(t)
	in, err := events.New("run-spin", events.KindPlan, 1, "codali/architect", t0(), testPlan())
	if err != nil {
		t.Fatal(err)
	}
	proto, err := newProtocol(dir, in, testPlan(), "scripted", t0, x.redactor, slog.New(slog.DiscardHandler), x.readable, config.Context{}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	return s, x, proto, dir, in
}

// A model that repeats a failing call is told it is spinning after the
// 4th similar call; when it goes on, the attempt ends with reason
// spinning at step 5, well before maxSteps.
func TestSpinningEndsTheAttemptEarly(t *testing.T) {
	rec := scripted(t, map[int]string{0: `{"thought":"read it again","tool_calls":[{"tool":"read_file","args":{"path":"missing.go"}}],"done":false}`})
	s, x, proto, dir, in := loopHarness(t, rec)
	if s.d.Config.Limits.MaxSteps <= 5 {
		t.Fatalf("maxSteps %d leaves no room to show an early stop", s.d.Config.Limits.MaxSteps)
	}
	tools, summary, _, err := runLoop(s, in, testPlan(), x, proto)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 5 || len(rec.reqs) != 5 {
		t.Fatalf("%d tool calls over %d model turns, want 5 and 5", len(tools), len(rec.reqs))
	}
	if !strings.HasPrefix(summary, "stopped: spinning") {
		t.Errorf("summary = %q", summary)
	}
	// The 5th turn was told so; the 4th was not.
	last := rec.reqs[4].Messages[len(rec.reqs[4].Messages)-1].Content
	if !strings.Contains(last, "you are spinning") || !strings.Contains(last, "read_file:missing.go") {
		t.Errorf("turn 5 was not told it is spinning: %q", last)
	}
	if prev := rec.reqs[3].Messages[len(rec.reqs[3].Messages)-1].Content; strings.Contains(prev, "spinning") {
		t.Errorf("turn 4 was told too early: %q", prev)
	}
	cog := proto.record()
	if cog.Stopped != events.StopSpinning || !cog.HelpSeeking || cog.MaxConsecutiveFailures != 5 {
		t.Errorf("record = stopped %q help %v failures %d", cog.Stopped, cog.HelpSeeking, cog.MaxConsecutiveFailures)
	}
	bd := events.BuiltData{Cognition: cog}
	if !strings.Contains(bd.EarlyStop(), "spinning") || len(bd.CognitionWarnings()) != 1 {
		t.Errorf("EarlyStop %q, warnings %v", bd.EarlyStop(), bd.CognitionWarnings())
	}
	var kinds = map[string]int{}
	for _, e := range cog.Entries {
		kinds[e.Operation.Type]++
		line, _ := e.MarshalLine()
		if err := afs.ValidateLine(line); err != nil {
			t.Errorf("entry %s: %v", e.ID, err)
		}
	}
	if kinds[afs.OpCognitiveState] != 5 || kinds[afs.OpToolCall] != 10 || kinds[afs.OpThoughtTrace] != 5 {
		t.Errorf("entry kinds = %v", kinds)
	}
	// The workspace's .context/ is the projection, and passes the shape
	// checks.
	ctxDir := filepath.Join(dir, afs.Root)
	if err := afs.Check(ctxDir); err != nil {
		t.Fatalf("workspace .context: %v", err)
	}
	got, err := afs.ReadDir(ctxDir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Metacognition.ProgressStatus != afs.ProgressSpinning || len(got.Metacognition.SelfCorrections) != 1 || len(got.History) != len(cog.Entries) {
		t.Errorf("materialised metacognition %+v, %d history lines for %d entries", got.Metacognition, len(got.History), len(cog.Entries))
	}
	if _, err := os.Stat(filepath.Join(ctxDir, filepath.FromSlash(afs.PathStateMD))); err != nil {
		t.Errorf("state.md not rendered: %v", err)
	}
}

// A model that changes strategy after the warning is not stopped.
func TestSpinningWarningHeeded(t *testing.T) {
	bad := `{"tool_calls":[{"tool":"read_file","args":{"path":"missing.go"}}],"done":false}`
	rec := scripted(t, map[int]string{1: bad, 2: bad, 3: bad, 4: bad,
		5: `{"thought":"list instead","tool_calls":[{"tool":"list_dir","args":{}}],"done":false}`,
		6: `{"done":true,"summary":"gave up reading"}`})
	s, x, proto, _, in := loopHarness(t, rec)
	tools, summary, _, err := runLoop(s, in, testPlan(), x, proto)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 5 || summary != "gave up reading" || proto.record().Stopped != "" {
		t.Errorf("%d tools, summary %q, stopped %q", len(tools), summary, proto.record().Stopped)
	}
}

// The builder's write tools are refused on protected .context/ paths with
// the file policy table's reason; scratchpad/ stays writable.
func TestContextPolicyTableEnforced(t *testing.T) {
	x, dir := newExecutor(t)
	cases := []struct {
		tool, args, want string
	}{
		{ToolWriteFile, `{"path":".context/memory/fears.json","content":"[]"}`, "read_only"},
		{ToolWriteFile, `{"path":".context/hivemind/x.json","content":"{}"}`, "read_only"},
		{ToolWriteFile, `{"path":".context/knowledge/a.md","content":"x"}`, "read_only"},
		{ToolWriteFile, `{"path":"./.context/notes/n.md","content":"x"}`, "read_only"},
		{ToolWriteFile, `{"path":".context/history/2026-01-01.jsonl","content":"{}"}`, "system_append"},
		{ToolWriteFile, `{"path":".context/tools/run.sh","content":"echo"}`, "executable"},
	}
	for _, c := range cases {
		rec, out := x.execute(context.Background(), 1, c.tool, json.RawMessage(c.args))
		if !rec.Gate.Blocked || rec.Gate.Stage != events.GateStageProtocol || !strings.Contains(out, c.want) || !strings.Contains(out, "§8") {
			t.Errorf("%s %s: gate %+v, out %q", c.tool, c.args, rec.Gate, out)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, ".context", "memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".context", "memory", "fears.json"), []byte(`[]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, args string }{
		{ToolEditFile, `{"path":".context/memory/fears.json","old":"[]","new":"[1]"}`},
		{ToolDeleteFile, `{"path":".context/memory/fears.json"}`},
	} {
		if rec, _ := x.execute(context.Background(), 1, c.tool, json.RawMessage(c.args)); rec.Gate.Stage != events.GateStageProtocol {
			t.Errorf("%s: gate %+v", c.tool, rec.Gate)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".context", "memory", "fears.json")); string(data) != "[]" {
		t.Errorf("protected file changed: %q", data)
	}
	rec, out := x.execute(context.Background(), 1, ToolWriteFile, json.RawMessage(`{"path":".context/scratchpad/notes.md","content":"plan"}`))
	if !rec.Result.OK {
		t.Errorf("scratchpad write refused: %s", out)
	}
	// Reading memory/ is fine.
	if rec, out := x.execute(context.Background(), 1, ToolReadFile, json.RawMessage(`{"path":".context/memory/fears.json"}`)); !rec.Result.OK {
		t.Errorf("memory read refused: %s", out)
	}
}

// The repository's own hazard playbooks are matched before the call, the
// mitigation goes into the snapshot state.md and the model's tool result.
func TestHazardPlaybookMatched(t *testing.T) {
	rec := scripted(t, map[int]string{
		1: `{"thought":"fix it","tool_calls":[{"tool":"write_file","args":{"path":"db/migrations/001.sql","content":"x"}}],"done":false}`,
		2: `{"done":true,"summary":"ok"}`})
	s, x, _, dir, in := loopHarness(t, rec)
	fears := `{"schemaVersion":"0.3","producer":{"name":"hafs","version":"1"},"lastUpdated":"2026-01-01T00:00:00Z",
		"playbooks":[{"id":"migrations","trigger":"editing migrations","mitigation":"add a new migration instead","paths":["db/migrations/**"]}]}`
	if err := os.MkdirAll(filepath.Join(dir, ".context", "memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".context", "memory", "fears.json"), []byte(fears), 0o644); err != nil {
		t.Fatal(err)
	}
	proto, err := newProtocol(dir, in, testPlan(), "scripted", t0, x.redactor, slog.New(slog.DiscardHandler), x.readable, config.Context{}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := runLoop(s, in, testPlan(), x, proto); err != nil {
		t.Fatal(err)
	}
	if msg := rec.reqs[1].Messages[len(rec.reqs[1].Messages)-1].Content; !strings.Contains(msg, "add a new migration instead") {
		t.Errorf("model not told the mitigation: %q", msg)
	}
	md, err := os.ReadFile(filepath.Join(dir, ".context", "scratchpad", "state.md"))
	if err != nil || !strings.Contains(string(md), "## hazards") || !strings.Contains(string(md), "add a new migration instead") {
		t.Errorf("state.md snapshot lacks the mitigation: %v\n%s", err, md)
	}
	var found bool
	for _, e := range proto.record().Entries {
		if e.Operation.Type == afs.OpCognitiveState && strings.Contains(string(e.Operation.Input), `"migrations"`) {
			found = true
		}
	}
	if !found {
		t.Error("no cognitive_state entry carries the matched hazard")
	}
}

// A .context/ file that does not decode is reported, not fatal.
func TestBrokenContextReported(t *testing.T) {
	rec := scripted(t, map[int]string{0: `{"done":true,"summary":"nothing"}`})
	_, x, _, dir, in := loopHarness(t, rec)
	if err := os.WriteFile(filepath.Join(dir, ".context", "scratchpad", "goals.json"), []byte("{broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	proto, err := newProtocol(dir, in, testPlan(), "scripted", t0, x.redactor, slog.New(slog.DiscardHandler), x.readable, config.Context{}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	errs := proto.record().ContextErrors
	if len(errs) != 1 || !strings.Contains(errs[0], "goals.json") {
		t.Errorf("context errors = %v", errs)
	}
	if !errors.Is(func() error { _, err := afs.ReadDir(filepath.Join(dir, ".context")); return err }(), afs.ErrRead) {
		t.Error("ReadDir does not report the broken file")
	}
}

func t0() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }

// High anxiety makes a destructive call the policy allows need approval;
// calm, it does not; emotions never block.
func TestAnxietyMakesDestructiveCallsNeedApproval(t *testing.T) {
	for _, anxious := range []bool{false, true} {
		x, _ := newExecutor(t)
		x.policy.Destructive = policy.DestructiveAllow
		x.confirmDestructive = func() bool { return anxious }
		rec, out := x.execute(context.Background(), 1, ToolDeleteFile, json.RawMessage(`{"path":"main.go"}`))
		if rec.Gate.Blocked || !rec.Result.OK {
			t.Fatalf("anxious=%v: delete blocked or failed: %s", anxious, out)
		}
		has := strings.Contains(strings.Join(rec.Gate.Warnings, "|"), WarningAnxiousDestructive)
		if has != anxious {
			t.Errorf("anxious=%v: warnings %v", anxious, rec.Gate.Warnings)
		}
		// A read is never destructive.
		if rec, _ := x.execute(context.Background(), 1, ToolListDir, json.RawMessage(`{}`)); len(rec.Gate.Warnings) != 0 {
			t.Errorf("list_dir warnings %v", rec.Gate.Warnings)
		}
	}
}

// A configured user scope fills in what the repository's .context/ lacks
// (here: the hazard playbooks), and the project's own data wins.
func TestUserScopeFillsIn(t *testing.T) {
	rec := scripted(t, map[int]string{
		1: `{"tool_calls":[{"tool":"run_command","args":{"command":["rm","-rf","build"]}}],"done":false}`,
		2: `{"done":true,"summary":"ok"}`})
	s, x, _, dir, in := loopHarness(t, rec)
	user := t.TempDir()
	write := func(root, rel, body string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(user, "memory/fears.json", `[{"id":"rm","trigger":"rm -rf","mitigation":"delete single files"}]`)
	meta := `"schema_version":"0.3","producer":{"name":"hafs","version":"1"},"last_updated":"2026-01-01T00:00:00Z"`
	write(user, "scratchpad/state.json", `{`+meta+`,"entries":[{"section":"facts","key":"lang","value":"from user","updated_at":"2026-11-23T00:00:00Z"},{"section":"facts","key":"editor","value":"vim","updated_at":"2026-01-01T00:00:00Z"}]}`)
	write(dir, ".context/scratchpad/state.json", `{`+meta+`,"entries":[{"section":"facts","key":"lang","value":"Go","updated_at":"2026-01-01T00:00:00Z"}]}`)
	proto, err := newProtocol(dir, in, testPlan(), "scripted", t0, x.redactor, slog.New(slog.DiscardHandler), x.readable, config.Context{UserDir: user, GlobalDir: filepath.Join(t.TempDir(), "missing")}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := runLoop(s, in, testPlan(), x, proto); err != nil {
		t.Fatal(err)
	}
	if msg := rec.reqs[1].Messages[len(rec.reqs[1].Messages)-1].Content; !strings.Contains(msg, "delete single files") {
		t.Errorf("the user scope's hazard was not matched: %q", msg)
	}
	got, err := afs.ReadDir(filepath.Join(dir, ".context"))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := got.State.Get("facts", "lang"); v != "Go" {
		t.Errorf("facts/lang = %q: the project's value must win over a newer user value", v)
	}
	if v, _ := got.State.Get("facts", "editor"); v != "vim" {
		t.Errorf("facts/editor = %q: the user scope must fill in", v)
	}
	if errs := proto.record().ContextErrors; len(errs) != 0 {
		t.Errorf("a missing global scope is not an error: %v", errs)
	}
}

// A record over its byte budget loses thought texts first, then tool
// errors, and says so; what the projection folds is kept.
func TestRecordWithinBudget(t *testing.T) {
	long := strings.Repeat("think ", 2000)
	rec := scripted(t, map[int]string{0: `{"thought":"` + long + `","tool_calls":[{"tool":"read_file","args":{"path":"missing.go"}}],"done":false}`})
	s, x, proto, _, in := loopHarness(t, rec)
	if _, _, _, err := runLoop(s, in, testPlan(), x, proto); err != nil {
		t.Fatal(err)
	}
	full := proto.record()
	if got := proto.recordWithin(1 << 20); len(got.ContextErrors) != 0 {
		t.Fatalf("a record within budget was trimmed: %v", got.ContextErrors)
	}
	small := proto.recordWithin(16 << 10)
	b, _ := json.Marshal(small.Entries)
	if len(b) > 16<<10 || len(b) >= len(mustJSON(full.Entries)) || len(small.ContextErrors) != 1 || !strings.Contains(small.ContextErrors[0], "elided") {
		t.Fatalf("trimmed record: %d bytes, %v", len(b), small.ContextErrors)
	}
	a, _ := afs.Project(afs.ProjectInput{Entries: full.Entries})
	c, _ := afs.Project(afs.ProjectInput{Entries: small.Entries})
	ra, _ := afs.Render(a)
	rc, _ := afs.Render(c)
	if string(ra[afs.PathMetacognition]) != string(rc[afs.PathMetacognition]) || string(ra[afs.PathEmotions]) != string(rc[afs.PathEmotions]) {
		t.Error("trimming changed the projection")
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// The protocol's history entries travel in the built event: a secret in a
// command's arguments is redacted there as everywhere else.
func TestProtocolEntriesAreRedacted(t *testing.T) {
	rec := scripted(t, map[int]string{0: `{"done":true,"summary":"ok"}`})
	_, x, proto, _, _ := loopHarness(t, rec)
	red, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	proto.redactor = red
	const secret = "xoxb-123456789012-abcdefghijkl"
	id, _ := proto.before(ToolRunCommand, json.RawMessage(`{"command":["curl","-H","Authorization: `+secret+`"]}`))
	proto.after(id, events.ToolExecution{Tool: ToolRunCommand, Result: events.ToolResult{OK: false, Error: "blocked"}})
	_ = x
	raw, err := json.Marshal(proto.recordWithin(1 << 20))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), secret) {
		t.Fatalf("the cognition record holds the secret: %s", raw)
	}
}

// runLoop runs the tool loop of a fresh attempt of pd as Handle does
// (no budget, nothing decided) and returns the record, the summary and the
// model usage.
func runLoop(s *Service, in events.Envelope, pd events.PlanData, x *executor, proto *protocol) ([]events.ToolExecution, string, []events.ModelUsage, error) {
	ctx := context.Background()
	msgs := prompt(pd, nil, s.d.Config.Librarian.PromptTokens)
	learned, err := s.learning(ctx, in.RunID(), pd, nil)
	if err != nil {
		return nil, "", nil, err
	}
	msgs[len(msgs)-1].Content += learned
	st := &loopState{Messages: msgs}
	summary, parked, err := s.loop(ctx, in, st, x, proto, nil, &meter{run: pd.Run})
	if len(parked) > 0 {
		return st.Tools, "", st.Usage, fmt.Errorf("parked on %d calls", len(parked))
	}
	return st.Tools, summary, st.Usage, err
}

// Anxiety comes from the recorded outcomes: after five failed calls the
// session is anxious, and a delete the policy allows parks the attempt
// for approval; the same delete from a calm session runs at once.
func TestFailuresMakeADeleteNeedApproval(t *testing.T) {
	fails := `{"tool":"read_file","args":{"path":"m1.go"}},{"tool":"read_file","args":{"path":"m2.go"}},{"tool":"read_file","args":{"path":"m3.go"}},` +
		`{"tool":"read_file","args":{"path":"m4.go"}},{"tool":"read_file","args":{"path":"m5.go"}},`
	for _, anxious := range []bool{false, true} {
		calls := `{"tool":"delete_file","args":{"path":"main.go"}}`
		if anxious {
			calls = fails + calls
		}
		rec := scripted(t, map[int]string{1: `{"tool_calls":[` + calls + `],"done":false}`, 2: `{"done":true,"summary":"ok"}`})
		s, x, proto, _, in := loopHarness(t, rec)
		x.policy.Destructive = policy.DestructiveAllow
		x.confirmDestructive = proto.confirmDestructive
		tools, _, _, err := runLoop(s, in, testPlan(), x, proto)
		parked := err != nil && strings.Contains(err.Error(), "parked on 1 calls")
		if err != nil && !parked {
			t.Fatal(err)
		}
		if parked != anxious {
			t.Errorf("anxious=%v: parked=%v (anxiety %v)", anxious, parked, proto.sess.Emotions().Session.AnxietyLevel)
		}
		if !anxious && (len(tools) != 1 || !tools[0].Result.OK) {
			t.Errorf("calm delete: %+v", tools)
		}
	}
}

// hivemind/ files are read into the snapshot only when the policy lets
// the model read them.
func TestHivemindReadOnlyWhenAllowed(t *testing.T) {
	for _, allowed := range []bool{true, false} {
		rec := scripted(t, map[int]string{0: `{"done":true,"summary":"nothing"}`})
		_, x, _, dir, in := loopHarness(t, rec)
		if !allowed {
			x.policy.NeverTouch = append(x.policy.NeverTouch, ".context/hivemind/**")
		}
		p := filepath.Join(dir, ".context", "hivemind", "fears.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(`{"fears":[]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		proto, err := newProtocol(dir, in, testPlan(), "scripted", t0, x.redactor, slog.New(slog.DiscardHandler), x.readable, config.Context{}, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		proto.before(ToolListDir, json.RawMessage(`{}`))
		var snap afs.CognitiveInput
		for _, e := range proto.record().Entries {
			if e.Operation.Type == afs.OpCognitiveState {
				if err := json.Unmarshal(e.Operation.Input, &snap); err != nil {
					t.Fatal(err)
				}
			}
		}
		if got := slices.Contains(snap.FilesRead, "hivemind/fears.json"); got != allowed {
			t.Errorf("allowed=%v: files read %v", allowed, snap.FilesRead)
		}
	}
}
