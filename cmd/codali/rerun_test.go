package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/examples"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/syncbuf"
	"github.com/nats-io/nats.go/jetstream"
)

// promptEdit changes the architect's system prompt before it reaches the
// model, as an edited prompt template would.
type promptEdit struct{ inner llm.Provider }

func (p promptEdit) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Phase == "architect" {
		msgs := append([]llm.Message(nil), req.Messages...)
		msgs[0].Content = strings.Replace(msgs[0].Content, "Do not write code.", "Never write code.", 1)
		req.Messages = msgs
	}
	return p.inner.Complete(ctx, req)
}

func TestRerunOfTheExampleIsIdenticalAndAPromptChangeIsDrift(t *testing.T) {
	p := startUp(t, "")
	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "--wait", "--json", "--timeout", "5m", examples.HelloRequest)
	if code != exitOK {
		t.Fatalf("submit exited %d\n%s\n%s\n%s", code, out, errOut, p.log.String())
	}
	env, _ := decodeTerminal(t, out)
	runID := env.RunID()
	p.recorded(t, "passed")

	// The history references every model exchange.
	_, raw, _ := p.run(t, "rao", "replay", runID, "--json")
	var replay struct {
		State struct {
			Attempts []struct {
				ModelCalls []struct {
					Phase string `json:"phase"`
					Hash  string `json:"hash"`
				} `json:"model_calls"`
			} `json:"attempts"`
		} `json:"state"`
	}
	if err := json.Unmarshal([]byte(raw), &replay); err != nil {
		t.Fatal(err)
	}
	if a := replay.State.Attempts; len(a) != 2 || len(a[0].ModelCalls) < 2 || a[0].ModelCalls[0].Phase != "architect" || len(a[0].ModelCalls[0].Hash) != 64 {
		t.Fatalf("model calls in the history: %+v", a)
	}

	// A second run of the same project starts from the lessons of the
	// first: its rerun must start from that project state too.
	code, out, errOut = p.run(t, "submit", "--repo", helloRepo(t), "--wait", "--json", "--timeout", "5m", examples.HelloRequest)
	if code != exitOK {
		t.Fatalf("second submit exited %d\n%s\n%s", code, out, errOut)
	}
	env2, _ := decodeTerminal(t, out)
	eventually(t, "recorder to record the second verdict", func() bool {
		_, out, _ := p.run(t, "runs", "--json")
		return strings.Count(out, `"status": "passed"`) == 2
	})
	for _, id := range []string{runID, env2.RunID()} {
		code, out, errOut = p.run(t, "rao", "rerun", id, "--json")
		if code != exitOK {
			t.Fatalf("rerun of %s exited %d\nstdout:\n%s\nstderr:\n%s", id, code, out, errOut)
		}
		var res rerunResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if res.Result != rerunIdentical || res.Requests != res.Recorded || res.Requests < 4 || res.Verdict == nil || res.Verdict.Status != "passed" || res.RerunID == id {
			t.Fatalf("rerun: %+v", res)
		}
	}
	code, out, _ = p.run(t, "rao", "rerun", runID)
	if code != exitOK || !strings.HasPrefix(out, "identical: run "+runID) {
		t.Fatalf("text rerun exited %d: %s", code, out)
	}

	for _, args := range [][]string{{"rao", "rerun"}, {"rao", "rerun", "not a run id"}, {"rao", "rerun", runID, "--timeout", "0s"}} {
		if code, _, _ := p.run(t, args...); code != exitUsage {
			t.Errorf("%v exited %d, want %d", args, code, exitUsage)
		}
	}
	if code, _, errOut := p.run(t, "rao", "rerun", "01m8659drcv6bxeysnbgeczjj4"); code != exitFailure || !strings.Contains(errOut, "no history") {
		t.Errorf("rerun of an unknown run exited %d: %s", code, errOut)
	}

	// An edited prompt template: drift, with the first differing field.
	c := &cli{stdin: strings.NewReader(""), stdout: &syncbuf.Buffer{}, stderr: &syncbuf.Buffer{}, getenv: os.Getenv,
		wrapReplay: func(p llm.Provider) llm.Provider { return promptEdit{p} }}
	code = c.main(context.Background(), []string{"rao", "rerun", "--nats", p.url, runID})
	text := c.stdout.(*syncbuf.Buffer).String()
	if code != exitFailure || !strings.Contains(text, "drift:") || !strings.Contains(text, "architect attempt 1 step 1") ||
		!strings.Contains(text, "messages[0].content") || !strings.Contains(text, "Never write code") {
		t.Fatalf("rerun with a changed prompt exited %d:\n%s\n%s", code, text, c.stderr.(*syncbuf.Buffer).String())
	}
}

// TestRerunWithAStricterPolicy: a policy that blocks the run's check
// changes what the architect is told on the retry: drift, exit 1.
func TestRerunWithAStricterPolicy(t *testing.T) {
	cfg := fastConfig(t)
	p := startUp(t, cfg)
	run := p.passedRun(t)
	if code, out, errOut := p.run(t, "rao", "rerun", run, "--config", cfg); code != exitOK || !strings.HasPrefix(out, "identical") {
		t.Fatalf("rerun with the recorded policy: %d %s %s", code, out, errOut)
	}
	strict := filepath.Join(t.TempDir(), "strict.json")
	if err := os.WriteFile(strict, []byte(`{"never_touch":[".git/**"],"commands":{"allow":[]},"destructive":"block","max_changed_lines":100}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := p.run(t, "rao", "rerun", run, "--config", cfg, "--policy", strict, "--json")
	var res rerunResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("rerun --policy: %d %s %s", code, out, errOut)
	}
	if code != exitFailure || res.Result != rerunDrift || res.Drift == nil || res.Drift.Phase != "architect" || res.Drift.Attempt != 2 ||
		!strings.Contains(res.Drift.Now, "blocked by policy") {
		t.Fatalf("rerun --policy exited %d: %+v %+v", code, res, res.Drift)
	}
}

// TestRerunRefusesATamperedHistory: a run's history rewritten behind the
// recorder's back (tamperHistory) does not verify; rerun says so and
// exits 1 instead of rerunning it and reporting identical.
func TestRerunRefusesATamperedHistory(t *testing.T) {
	cfg := fastConfig(t)
	p := startUp(t, cfg)
	run := p.passedRun(t)
	p.tamperHistory(t, run)
	code, out, errOut := p.run(t, "rao", "rerun", run, "--config", cfg)
	if code != exitFailure || strings.Contains(out, "identical") || !strings.Contains(errOut, "does not verify") {
		t.Fatalf("rerun of a tampered history exited %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// TestRerunOfARunWhoseExchangesAreGone: a run whose recorded model
// exchanges are no longer stored (their chunks purged; the bucket's TTL
// expires them alike, their metas with them or not) cannot be rerun:
// rerun says the recording is gone and exits 1, instead of waiting for
// content that never comes.
func TestRerunOfARunWhoseExchangesAreGone(t *testing.T) {
	cfg := fastConfig(t)
	p := startUp(t, cfg)
	run := p.passedRun(t)
	_, js := p.js(t)
	natstest.PurgeArtifactChunks(t, context.Background(), js)
	code, out, errOut := p.run(t, "rao", "rerun", run, "--config", cfg)
	if code != exitFailure || strings.Contains(out, "identical") || !strings.Contains(errOut, "cannot be rerun: a recorded model exchange is gone") ||
		!strings.Contains(errOut, "artifact lost") {
		t.Fatalf("rerun of a run whose exchanges are gone exited %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// tamperHistory rewrites a run's history behind the recorder's back:
// every event is published again, the second one's summary changed, so
// the sequence stays contiguous and the state replays, but the hash
// chain breaks. It fails the test unless `rao verify` then fails.
func (p *pipeline) tamperHistory(t *testing.T, run string) {
	t.Helper()
	ctx := context.Background()
	_, js := p.js(t)
	s, err := js.Stream(ctx, events.StreamRAO)
	if err != nil {
		t.Fatal(err)
	}
	var history [][]byte
	for seq := uint64(1); ; {
		m, err := s.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(events.RAOSubject(run)))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		history, seq = append(history, m.Data), m.Sequence+1
	}
	if len(history) < 3 {
		t.Fatalf("history of %d events", len(history))
	}
	if err := s.Purge(ctx, jetstream.WithPurgeSubject(events.RAOSubject(run))); err != nil {
		t.Fatal(err)
	}
	for i, data := range history {
		if i == 1 {
			data = bytes.Replace(data, []byte(`"summary":"`), []byte(`"summary":"(edited) `), 1)
		}
		if _, err := js.Publish(ctx, events.RAOSubject(run), data); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, _ := p.run(t, "rao", "verify", run); code != exitFailure {
		t.Fatalf("verify of the rewritten history: %d %s", code, out)
	}
}

// TestRerunOfAnApprovedRun: a run that parked for approval and was
// approved reruns with the recorded decisions (the rerun parks on the
// same calls, and each gets the decision recorded for it), so it is
// identical instead of waiting for a decision nobody sends; a rerun that
// parks on a call the recorded run never parked on says so at once.
func TestRerunOfAnApprovedRun(t *testing.T) {
	cfg := approvalConfig(t, 300000)
	p := startUp(t, cfg)
	verdict := p.verdicts(t)
	run, pend := p.parked(t, "rerun an approved run")
	for _, a := range pend {
		p.must(t, "approve", run, a.Call, "--by", "alice", "--note", "fine")
	}
	if env, _ := verdict(run); env.Type != events.KindPassed.Type() {
		t.Fatalf("the approved run: %s", env.Type)
	}
	p.recorded(t, "passed")
	code, out, errOut := p.run(t, "rao", "rerun", run, "--config", cfg, "--timeout", "2m")
	if code != exitOK || !strings.HasPrefix(out, "identical") {
		t.Fatalf("rerun of an approved run exited %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	// A policy that also parks done.txt's write: the recorded run never
	// had that call decided.
	strict := filepath.Join(t.TempDir(), "strict.json")
	if err := os.WriteFile(strict, []byte(`{"never_touch":[".git/**"],"require_approval_for":{"paths":["go.mod","go.sum","done.txt"]},
	  "commands":{"allow":[["test","-f"]]},"destructive":"block","max_changed_lines":100}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = p.run(t, "rao", "rerun", run, "--config", cfg, "--policy", strict, "--timeout", "2m")
	if code != exitFailure || !strings.Contains(errOut, "parked for approval on call a1-s1-c2") || !strings.Contains(errOut, "no decision on") {
		t.Fatalf("rerun parking on an undecided call exited %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// passedRun submits a one-edit request ("write done.txt") on a copy of
// the hello repository, fails the test unless it passes, waits until the
// recorder has recorded its verdict and returns its run id.
func (p *pipeline) passedRun(t *testing.T) string {
	t.Helper()
	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "--wait", "--json", "--timeout", "5m", "write done.txt")
	if code != exitOK {
		t.Fatalf("submit: %d %s %s", code, out, errOut)
	}
	env, _ := decodeTerminal(t, out)
	p.recorded(t, "passed")
	return env.RunID()
}
