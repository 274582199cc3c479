package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/worker"
)

// reparkConfig writes a configuration whose builder parks twice: its
// first answer writes go.mod and its second go.sum, both of which the
// policy parks for approval; its third says it is done.
func reparkConfig(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	plan := `{"summary":"s","steps":[{"description":"edit go.mod, write go.sum"}],"target_files":["go.mod"],"creates":["go.sum"],"verify":[{"name":"sum","command":["test","-f","go.sum"]}]}`
	script := `{"responses":[
	  {"phase":"architect","json":` + plan + `},
	  {"phase":"builder","step":1,"json":{"tool_calls":[{"tool":"write_file","args":{"path":"go.mod","content":"module example.com/hello\n\ngo 1.23\n// approved\n"}}]}},
	  {"phase":"builder","step":2,"json":{"tool_calls":[{"tool":"write_file","args":{"path":"go.sum","content":"asked\n"}}]}},
	  {"phase":"builder","step":3,"json":{"done":true,"summary":"ok"}}]}`
	pol := `{"never_touch":[".git/**"],"require_approval_for":{"paths":["go.mod","go.sum"]},
	  "commands":{"allow":[["test","-f"]]},"destructive":"block","max_changed_lines":100}`
	cfg := `{"providers":{"fast":{"type":"scripted","script":"script.json"}},
	  "routing":{"architect":{"provider":"fast"},"builder":{"provider":"fast"}},
	  "limits":{"approvalTimeoutMs":300000,"maxRetries":0},"policy":"policy.json"}`
	for name, body := range map[string]string{"script.json": script, "policy.json": pol, "codali.config.json": cfg} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "codali.config.json")
}

// TestRerunAfterARepublishedPark: the decision on the first park resumes
// the run, which parks again; the builder stores the second park and
// stops before its approval_requested is published (the handling fails
// after parking). The redelivered decision makes the builder publish the
// stored park again. That park must carry the model exchanges of the
// handling that made it, as the lost one did: the history then holds
// every exchange of the run and its rerun is identical, not drift.
func TestRerunAfterARepublishedPark(t *testing.T) {
	cfgPath := reparkConfig(t)
	p := startUpWith(t, upOptions{workers: "librarian,architect,critic,recorder", config: cfgPath})

	// The builder runs beside the pipeline, with a handler that loses
	// the outputs of the first handling that parks the run again after
	// a decision.
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workspace.Root = t.TempDir()
	_, js := p.js(t)
	// Stopped before its connection closes (cleanups run last first).
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	d, err := app.NewDeps(ctx, cfg, js, slog.New(slog.DiscardHandler), time.Now, os.Getenv, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, metrics, err := app.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	var crashed atomic.Bool
	comp := components()[events.ServiceBuilder]
	newHandler := comp.NewHandler
	comp.NewHandler = func(ctx context.Context, d *app.Deps) (worker.Handler, error) {
		h, err := newHandler(ctx, d)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
			outs, err := h(ctx, in)
			if err == nil && in.Type == events.KindApprovalDecided.Type() && len(outs) == 1 &&
				outs[0].Type == events.KindApprovalRequested.Type() && crashed.CompareAndSwap(false, true) {
				return nil, errors.New("the builder stopped after parking the run again")
			}
			return outs, err
		}, nil
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer d.Close()
		if err := app.RunComponents(ctx, d, []app.Component{comp}, metrics, worker.NewHealth()); err != nil {
			t.Errorf("builder stopped: %v", err)
		}
	}()

	verdict := p.verdicts(t)
	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "park twice")
	if code != exitOK {
		t.Fatalf("submit: %d %s", code, errOut)
	}
	run := strings.TrimSpace(out)
	for _, call := range []string{"a1-s1-c1", "a1-s2-c1"} {
		eventually(t, "run "+run+" to wait for approval of "+call, func() bool {
			pend := p.pendingOf(t, run)
			return len(pend) == 1 && pend[0].Call == call
		})
		p.must(t, "approve", run, call, "--by", "alice", "--note", "fine")
	}
	if env, v := verdict(run); env.Type != events.KindPassed.Type() {
		t.Fatalf("the approved run: %s %s", env.Type, v.Reason)
	}
	if !crashed.Load() {
		t.Fatal("the second park was never lost")
	}
	p.recorded(t, "passed")
	code, out, errOut = p.run(t, "rao", "rerun", run, "--config", cfgPath, "--timeout", "2m")
	if code != exitOK || !strings.HasPrefix(out, "identical") {
		t.Fatalf("rerun of a run whose park was published again exited %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}
