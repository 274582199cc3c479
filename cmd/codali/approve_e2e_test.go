package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/syncbuf"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// approvalConfig writes a configuration whose policy requires approval for
// go.mod and go.sum: the builder's first answer writes go.mod, done.txt
// and go.sum, so every run parks on two calls (go.mod, go.sum) and runs
// done.txt once resumed; the critic checks done.txt.
func approvalConfig(t *testing.T, timeoutMS int) string {
	t.Helper()
	dir := t.TempDir()
	plan := `{"summary":"s","steps":[{"description":"write done.txt"}],"target_files":["go.mod"],"creates":["done.txt","go.sum"],"verify":[{"name":"done","command":["test","-f","done.txt"]}]}`
	script := `{"responses":[
	  {"phase":"architect","json":` + plan + `},
	  {"phase":"builder","step":1,"json":{"tool_calls":[
	    {"tool":"write_file","args":{"path":"go.mod","content":"module example.com/hello\n\ngo 1.23\n// approved\n"}},
	    {"tool":"write_file","args":{"path":"done.txt","content":"x\n"}},
	    {"tool":"write_file","args":{"path":"go.sum","content":"asked\n"}}]}},
	  {"phase":"builder","step":2,"json":{"done":true,"summary":"ok"}}]}`
	pol := `{"never_touch":[".git/**"],"require_approval_for":{"paths":["go.mod","go.sum"]},
	  "commands":{"allow":[["test","-f"]]},"destructive":"block","max_changed_lines":100}`
	cfg := fmt.Sprintf(`{"providers":{"fast":{"type":"scripted","script":"script.json"}},
	  "routing":{"architect":{"provider":"fast"},"builder":{"provider":"fast"}},
	  "limits":{"approvalTimeoutMs":%d,"maxRetries":0},"policy":"policy.json"}`, timeoutMS)
	for name, body := range map[string]string{"script.json": script, "policy.json": pol, "codali.config.json": cfg} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "codali.config.json")
}

// pendingOf lists the run's pending approvals through `codali approvals --json`.
func (p *pipeline) pendingOf(t *testing.T, runID string) []pendingApproval {
	t.Helper()
	code, out, errOut := p.run(t, "approvals", "--json")
	if code != exitOK {
		t.Fatalf("approvals: %d %s", code, errOut)
	}
	var all []pendingApproval
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatalf("approvals --json: %v\n%s", err, out)
	}
	var mine []pendingApproval
	for _, a := range all {
		if a.RunID == runID {
			mine = append(mine, a)
		}
	}
	return mine
}

// parked submits a run and waits until it is parked on its two calls.
func (p *pipeline) parked(t *testing.T, request string) (string, []pendingApproval) {
	t.Helper()
	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), request)
	if code != exitOK {
		t.Fatalf("submit: %d %s", code, errOut)
	}
	runID := strings.TrimSpace(out)
	var pend []pendingApproval
	eventually(t, "run "+runID+" to wait for approval", func() bool {
		pend = p.pendingOf(t, runID)
		return len(pend) == 2
	})
	return runID, pend
}

// parkRequested waits until the run's park record holds the stream
// sequence of its approval_requested, and checks the message stored
// there is that park.
func (p *pipeline) parkRequested(t *testing.T, runID string) {
	t.Helper()
	_, js := p.js(t)
	ctx := t.Context()
	kv, err := js.KeyValue(ctx, events.BucketParks)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Park      events.Envelope `json:"park"`
		Requested uint64          `json:"requested"`
		Awaits    bool            `json:"awaits"`
	}
	eventually(t, "the park of "+runID+" to know its approval_requested", func() bool {
		e, err := kv.Get(ctx, runID)
		return err == nil && json.Unmarshal(e.Value(), &rec) == nil && rec.Requested != 0
	})
	if !rec.Awaits {
		t.Fatalf("the park of %s does not await its approval_requested: %+v", runID, rec)
	}
	st, err := js.Stream(ctx, events.StreamWork)
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.GetMsg(ctx, rec.Requested)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return // acknowledged by every consumer since: nothing to compare
	}
	if err != nil {
		t.Fatal(err)
	}
	key, err := bus.MsgIDKey(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	id, err := key.For(rec.Park.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Header.Get(events.HeaderMsgID) != id || m.Subject != events.KindApprovalRequested.Subject(runID) {
		t.Fatalf("the park of %s names message %d, which is %s %s, not its approval_requested %s", runID, rec.Requested, m.Subject, m.Header.Get(events.HeaderMsgID), id)
	}
}

func (p *pipeline) must(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := p.run(t, args...)
	if code != exitOK {
		t.Fatalf("%s: exit %d\n%s\n%s\nservices:\n%s", strings.Join(args, " "), code, out, errOut, p.log.String())
	}
	return out
}

// verdicts keeps every terminal event stored from now on (the work stream
// keeps an event only for consumers that have not acknowledged it) and
// returns a function that waits for a run's.
func (p *pipeline) verdicts(t *testing.T) func(runID string) (events.Envelope, events.VerdictData) {
	t.Helper()
	_, js := p.js(t)
	cons, err := js.CreateConsumer(context.Background(), events.StreamWork, jetstream.ConsumerConfig{
		FilterSubjects: []string{events.KindPassed.FilterSubject(), events.KindFailed.FilterSubject()},
		AckPolicy:      jetstream.AckExplicitPolicy, DeliverPolicy: jetstream.DeliverNewPolicy})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]events.Envelope{}
	return func(runID string) (events.Envelope, events.VerdictData) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute)
		for {
			if env, ok := seen[runID]; ok {
				var v events.VerdictData
				if err := events.DecodeData(env, &v); err != nil {
					t.Fatal(err)
				}
				return env, v
			}
			if time.Now().After(deadline) {
				t.Fatalf("no terminal event for %s\nservices:\n%s", runID, p.log.String())
			}
			m, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
			if err != nil {
				continue
			}
			_ = m.Ack()
			env, err := events.Decoder{}.Decode(m.Subject(), m.Data())
			if err != nil {
				t.Fatal(err)
			}
			if _, dup := seen[env.RunID()]; !dup {
				seen[env.RunID()] = env
			}
		}
	}
}

func TestApprovalsParkAndResumeRuns(t *testing.T) {
	cfg := approvalConfig(t, 120000)
	p := startUp(t, cfg)
	verdict := p.verdicts(t)

	// Approve one call as asked and the other with edited arguments.
	runA, pend := p.parked(t, "approve me")
	if pend[0].Call == pend[1].Call || pend[0].Tool != "write_file" || !strings.Contains(strings.Join(pend[0].Warnings, " "), "requires approval") {
		t.Fatalf("pending calls: %+v", pend)
	}
	// The runtime reported where it stored the park's approval_requested
	// (through every wrapper of the builder's handler): decisions count
	// from there on, as in the history.
	p.parkRequested(t, runA)
	_, runsOut, _ := p.run(t, "runs")
	if !strings.Contains(runsOut, runA) || !strings.Contains(runsOut, "waiting for approval") {
		t.Fatalf("codali runs does not show the wait:\n%s", runsOut)
	}
	byTarget := map[string]string{}
	for _, a := range pend {
		byTarget[strings.Join(a.Targets, " ")] = a.Call
	}
	gomod, gosum := byTarget["go.mod"], byTarget["go.sum"]
	if gomod == "" || gosum == "" {
		t.Fatalf("pending calls do not target go.mod and go.sum: %+v", pend)
	}
	p.must(t, "approve", runA, gomod, "--note", "ok", "--by", "alice")
	// One decision does not resume a run parked on two calls.
	if got := p.pendingOf(t, runA); len(got) > 1 {
		eventually(t, "the first decision to be recorded", func() bool { return len(p.pendingOf(t, runA)) == 1 })
	}
	edit := filepath.Join(t.TempDir(), "args.json")
	if err := os.WriteFile(edit, []byte(`{"path":"go.sum","content":"edited\n"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	p.must(t, "approve", runA, gosum, "--edit", edit, "--by", "bob")
	env, v := verdict(runA)
	if k, _ := env.Kind(); k != events.KindPassed || v.Change == nil {
		t.Fatalf("run A: %s %+v", env.Type, v)
	}
	if !strings.Contains(v.Change.Diff, "+// approved") || !strings.Contains(v.Change.Diff, "+edited") || strings.Contains(v.Change.Diff, "+asked") {
		t.Fatalf("run A's change does not hold the approved and the edited writes:\n%s", v.Change.Diff)
	}
	// Approved calls do not leave the run amber: the decisions are in the
	// verdict instead of warnings.
	if v.Integrity != events.IntegrityGreen || strings.Contains(strings.Join(v.Warnings, " "), "requires approval") {
		t.Errorf("run A: integrity %s, warnings %q", v.Integrity, v.Warnings)
	}
	if len(v.Approvals) != 2 || v.Approvals[0].By != "alice" || v.Approvals[0].Note != "ok" || v.Approvals[0].Edited ||
		v.Approvals[1].By != "bob" || !v.Approvals[1].Edited || v.Approvals[1].At.IsZero() {
		t.Errorf("run A's verdict approvals: %+v", v.Approvals)
	}
	replay := p.must(t, "rao", "replay", runA, "--json")
	for _, want := range []string{"approval requested", gomod + " approved by alice", gosum + " approved with edited arguments by bob", `"edited_args"`} {
		if !strings.Contains(replay, want) {
			t.Errorf("history of run A lacks %q", want)
		}
	}

	// Today's policy, simulated over the history, says which calls would
	// wait for approval.
	sim := p.must(t, "rao", "replay", runA, "--simulate", "--policy", filepath.Join(filepath.Dir(cfg), "policy.json"))
	if !strings.Contains(sim, "would wait for approval") {
		t.Errorf("replay --simulate does not say which calls need approval:\n%s", sim)
	}

	// Reject both: the run goes on without them.
	runB, pend := p.parked(t, "reject me")
	if code, _, _ := p.run(t, "reject", runB, pend[0].Call); code != exitUsage {
		t.Fatalf("reject without a note: exit %d, want usage", code)
	}
	if code, _, errOut := p.run(t, "approve", runB, "a9-s9-c9"); code != exitFailure || !strings.Contains(errOut, "not waiting") {
		t.Fatalf("approving an unknown call: %d %s", code, errOut)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`["not", "an object"]`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{bad, filepath.Join(t.TempDir(), "missing.json")} {
		if code, _, errOut := p.run(t, "approve", runB, pend[0].Call, "--edit", f); code != exitUsage || !strings.Contains(errOut, "--edit") {
			t.Fatalf("approve --edit %s: %d %s", f, code, errOut)
		}
	}
	for _, a := range pend {
		p.must(t, "reject", runB, a.Call, "--note", "no dependency changes", "--by", "carol")
	}
	env, v = verdict(runB)
	if k, _ := env.Kind(); k != events.KindPassed || v.Change == nil || strings.Contains(v.Change.Diff, "go.mod") || !strings.Contains(v.Change.Diff, "done.txt") {
		t.Fatalf("run B: %s %+v", env.Type, v.Change)
	}
	if v.Integrity != events.IntegrityAmber || !strings.Contains(strings.Join(v.Warnings, "\n"), "rejected by carol: no dependency changes") ||
		len(v.Approvals) != 2 || v.Approvals[0].Decision != events.DecisionReject {
		t.Errorf("run B: rejected calls must stay visible: integrity %s, warnings %q, approvals %+v", v.Integrity, v.Warnings, v.Approvals)
	}
	if replay := p.must(t, "rao", "replay", runB, "--json"); !strings.Contains(replay, "rejected by carol") {
		t.Errorf("history of run B lacks the rejection")
	}

	// Cancel a parked run.
	runC, pend := p.parked(t, "cancel me")
	p.must(t, "rao", "override", "cancel", runC, "--reason", "not today", "--by", "dave")
	env, v = verdict(runC)
	if v.Status != events.StatusCanceled || v.Code != events.CodeCanceled || !strings.HasPrefix(v.Reason, "canceled by dave") {
		t.Fatalf("run C: %s %+v", env.Type, v)
	}
	if code, out, _ := p.run(t, "watch", runC); code != exitFailure || !strings.Contains(out, "canceled") {
		t.Fatalf("watch of the canceled run: %d %s", code, out)
	}
	eventually(t, "the canceled run to leave the approvals", func() bool { return len(p.pendingOf(t, runC)) == 0 })
	if code, _, _ := p.run(t, "approve", runC, pend[0].Call); code != exitFailure {
		t.Fatalf("approving a call of a canceled run: exit %d", code)
	}
	_, runsOut, _ = p.run(t, "runs")
	if !strings.Contains(runsOut, runC+"  "+audit.StatusCancelled) {
		t.Fatalf("codali runs does not show the cancel:\n%s", runsOut)
	}
}

func TestApprovalTimeoutFailsTheRun(t *testing.T) {
	p := startUp(t, approvalConfig(t, 2000))
	verdict := p.verdicts(t)
	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "nobody answers")
	if code != exitOK {
		t.Fatalf("submit: %d %s", code, errOut)
	}
	runID := strings.TrimSpace(out)
	env, v := verdict(runID)
	if k, _ := env.Kind(); k != events.KindFailed || v.Code != events.CodeApprovalTimeout || !strings.HasPrefix(v.Reason, "approval_timeout") {
		t.Fatalf("timeout: %s %+v", env.Type, v)
	}
	replay := p.must(t, "rao", "replay", runID, "--json")
	if !strings.Contains(replay, "approval requested") {
		t.Fatal("history lacks the approval request")
	}
}

// TestParkedRunSurvivesARestart stops the server and every worker while a
// run waits, starts them again on the same data, and decides: the run
// resumes from the recorded state and passes.
func TestParkedRunSurvivesARestart(t *testing.T) {
	cfg := approvalConfig(t, 300000)
	data := t.TempDir()
	p, stop := startStoppable(t, upOptions{workers: "all", config: cfg, data: data})
	runID, pend := p.parked(t, "survive a restart")
	stop()
	p, stop = startStoppable(t, upOptions{workers: "all", config: cfg, data: data})
	defer stop()
	verdict := p.verdicts(t)
	if got := p.pendingOf(t, runID); len(got) != 2 {
		t.Fatalf("pending after the restart: %+v", got)
	}
	// One call is approved from the CLI, the other as an agent would over
	// plain NATS, with hand-written JSON.
	p.must(t, "approve", runID, pend[0].Call, "--by", "erin")
	nc, _ := p.js(t)
	id := fmt.Sprintf("%s.approval_decided.%d.%s", runID, pend[1].Attempt, pend[1].Call)
	m := nats.NewMsg("codali.run." + runID + ".approval_decided")
	m.Header.Set("Nats-Msg-Id", id)
	m.Data = []byte(`{"specversion":"1.0","id":"` + id + `","source":"agent/chatbot","type":"dev.codali.run.approval_decided",
	  "subject":"` + runID + `","time":"2026-11-22T10:00:00Z","datacontenttype":"application/json","attempt":` + fmt.Sprint(pend[1].Attempt) + `,
	  "data":{"call":"` + pend[1].Call + `","decision":"approve","by":"chatbot","at":"2026-11-22T10:00:00Z","note":"lgtm"}}`)
	if _, err := nc.RequestMsg(m, 10*time.Second); err != nil {
		t.Fatalf("publishing a decision over NATS: %v", err)
	}
	env, v := verdict(runID)
	if k, _ := env.Kind(); k != events.KindPassed || v.Change == nil || !strings.Contains(v.Change.Diff, "+// approved") || !strings.Contains(v.Change.Diff, "+asked") {
		t.Fatalf("after restart: %s %+v", env.Type, v.Change)
	}
}

// startStoppable runs `codali up` on o.data until stop is called.
func startStoppable(t *testing.T, o upOptions) (*pipeline, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	log, out := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	c := &cli{stdin: strings.NewReader(""), stdout: out, stderr: log, getenv: os.Getenv}
	o.listen, o.http, o.ready, o.level, o.replicas = "127.0.0.1:0", "127.0.0.1:0", ready, "warn", 1
	done := make(chan int, 1)
	go func() { done <- c.up(ctx, o) }()
	var url string
	select {
	case url = <-ready:
	case code := <-done:
		cancel()
		t.Fatalf("codali up exited %d:\n%s", code, log.String())
	case <-time.After(120 * time.Second):
		cancel()
		<-done
		t.Fatalf("codali up did not start:\n%s", log.String())
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("codali up exited %d:\n%s", code, log.String())
		}
	}
	t.Cleanup(stop)
	return &pipeline{url: url, data: o.data, log: log, out: out}, stop
}
