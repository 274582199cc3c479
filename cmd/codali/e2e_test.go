package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/examples"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/codex"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/syncbuf"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// pipeline is an in-process `codali up` for a test.
type pipeline struct {
	url  string
	data string
	log  *syncbuf.Buffer
	out  *syncbuf.Buffer
}

// metrics fetches the pipeline's Prometheus exposition.
func (p *pipeline) metrics(t *testing.T) string {
	t.Helper()
	return p.scrape(t, "")
}

// openMetrics fetches the OpenMetrics exposition (with exemplars).
func (p *pipeline) openMetrics(t *testing.T) string {
	t.Helper()
	return p.scrape(t, "application/openmetrics-text")
}

func (p *pipeline) scrape(t *testing.T, accept string) string {
	t.Helper()
	m := regexp.MustCompile(`health http://([0-9.:]+)/readyz`).FindStringSubmatch(p.out.String())
	if m == nil {
		t.Fatalf("no health address in %q", p.out.String())
	}
	req, err := http.NewRequest(http.MethodGet, "http://"+m[1]+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// startUp runs `codali up` in-process on random ports with a temporary data
// directory until the test ends.
func startUp(t *testing.T, configPath string) *pipeline {
	t.Helper()
	return startUpWith(t, upOptions{workers: "all", config: configPath})
}

// startUpWith runs `codali up` with o (its data directory, listen and
// health addresses and log level filled in) until the test ends.
func startUpWith(t *testing.T, o upOptions) *pipeline {
	t.Helper()
	p, err := startUpErr(t, o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// startUpErr is startUpWith returning its error; it may be called from
// any goroutine.
func startUpErr(t *testing.T, o upOptions) (*pipeline, error) {
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	log, out := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	c := &cli{stdin: strings.NewReader(""), stdout: out, stderr: log, getenv: os.Getenv}
	data := t.TempDir()
	o.data, o.listen, o.http, o.ready = data, "127.0.0.1:0", "127.0.0.1:0", ready
	if o.level == "" {
		o.level = "warn"
	}
	if o.replicas == 0 {
		o.replicas = 1
	}
	done := make(chan int, 1)
	go func() { done <- c.up(ctx, o) }()
	var url string
	select {
	case url = <-ready:
	case code := <-done:
		cancel()
		return nil, fmt.Errorf("codali up exited %d:\n%s", code, log.String())
	case <-time.After(120 * time.Second):
		cancel()
		<-done
		return nil, fmt.Errorf("codali up did not start:\n%s", log.String())
	}
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("codali up exited %d:\n%s", code, log.String())
		}
	})
	p := &pipeline{url: url, data: data, log: log, out: out}
	// Runs before the pipeline stops: every history line any run of the
	// test recorded passes the protocol's line-shape validator.
	t.Cleanup(func() { checkHistoryLines(t, url) })
	return p, nil
}

// run runs one CLI command and returns its exit code and output.
func (p *pipeline) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	out, errOut := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	c := &cli{stdin: strings.NewReader(""), stdout: out, stderr: errOut, getenv: os.Getenv}
	n := 1
	if args[0] == "rao" || args[0] == "context" {
		n = 2 // after the subcommand
	}
	full := append(append(append([]string{}, args[:n]...), "--nats", p.url), args[n:]...)
	code := c.main(context.Background(), full)
	return code, out.String(), errOut.String()
}

func (p *pipeline) js(t *testing.T) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := bus.Connect(bus.ConnectOptions{URL: p.url, Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
	}
}

func helloRepo(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../examples/hello")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func decodeTerminal(t *testing.T, out string) (events.Envelope, events.VerdictData) {
	t.Helper()
	var env events.Envelope
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("terminal event is not JSON: %v\n%s", err, out)
	}
	var v events.VerdictData
	if err := events.DecodeData(env, &v); err != nil {
		t.Fatal(err)
	}
	return env, v
}

func TestExamplePassesAfterExactlyOneRetry(t *testing.T) {
	p := startUp(t, "")
	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "--wait", "--json", "--require-integrity", "green", "--timeout", "5m", examples.HelloRequest)
	if code != exitOK {
		t.Fatalf("submit exited %d\nstdout:\n%s\nstderr:\n%s\nservices:\n%s", code, out, errOut, p.log.String())
	}
	env, v := decodeTerminal(t, out)
	if k, _ := env.Kind(); k != events.KindPassed || v.Attempts != 2 || v.Integrity != events.IntegrityGreen {
		t.Fatalf("terminal %s: %+v", env.Type, v)
	}
	if strings.Count(errOut, " retry ") != 1 {
		t.Fatalf("progress should show exactly one retry:\n%s", errOut)
	}
	if v.Change == nil || !strings.Contains(v.Change.Diff, `name = "world"`) {
		t.Fatalf("change: %+v", v.Change)
	}
	// The handoff payload decodes and its integrity reflects the verdict.
	st, diags, err := codex.Decode(v.Run.Codex)
	if err != nil || codex.HasErrors(diags) {
		t.Fatalf("codex payload: %v %v\n%s", err, diags, v.Run.Codex)
	}
	if st.DecisionContext.Integrity != codex.IntegrityGreen {
		t.Fatalf("codex integrity %v", st.DecisionContext.Integrity)
	}

	runID := env.RunID()
	p.recorded(t, "passed")
	code, out, errOut = p.run(t, "rao", "replay", runID, "--json", "--simulate")
	if code != exitOK {
		t.Fatalf("rao replay: %d %s", code, errOut)
	}
	var replay struct {
		Events []struct {
			Kind     string                             `json:"kind"`
			Meta     struct{ PMRev, PolicyHash string } `json:"meta"`
			Simulate *struct {
				Available bool `json:"available"`
			} `json:"simulate"`
		} `json:"events"`
		State struct {
			Status   string `json:"status"`
			Attempts []struct {
				Result struct{ Outcome string } `json:"result"`
			} `json:"attempts"`
		} `json:"state"`
	}
	if err := json.Unmarshal([]byte(out), &replay); err != nil {
		t.Fatal(err)
	}
	if replay.State.Status != "passed" || len(replay.State.Attempts) != 2 || replay.State.Attempts[0].Result.Outcome != "retry" || replay.State.Attempts[1].Result.Outcome != "passed" {
		t.Fatalf("replayed state: %+v", replay.State)
	}
	audits, withRev := 0, 0
	for _, e := range replay.Events {
		if e.Kind == "audit" {
			audits++
			if e.Simulate == nil || !e.Simulate.Available {
				t.Fatalf("audit event without simulation: %+v", e)
			}
		}
		if e.Meta.PMRev != "unknown" {
			withRev++
		}
	}
	if audits != 6 || withRev == 0 {
		t.Fatalf("audit events %d (want 4 gated tool calls and 2 gated changes), events with pm_rev %d", audits, withRev)
	}
	if code, out, _ := p.run(t, "rao", "verify", runID); code != exitOK || !strings.Contains(out, "ok") {
		t.Fatalf("rao verify: %d %s", code, out)
	}
	checkContextExport(t, p, runID)
	checkPromotion(t, p, runID)
	if m := p.metrics(t); !strings.Contains(m, `codali_runs_finished_total{integrity="green",status="passed"} 1`) ||
		!strings.Contains(m, `codali_events_handled_total{event="built",outcome="ok",service="critic"}`) {
		t.Fatalf("metrics missing run or handler series:\n%s", m)
	}
	if m := p.metrics(t); !strings.Contains(m, `codali_model_tokens_total{direction="input",model="scripted",phase="architect"`) ||
		!strings.Contains(m, `codali_model_request_duration_seconds_count{model="scripted",phase="builder"`) {
		t.Fatalf("metrics missing model usage series:\n%s", m)
	}
	// The critic taught the project: the failed attempt's summary and a
	// golden example of the pass.
	_, js := p.js(t)
	kv, err := js.KeyValue(context.Background(), events.BucketPMState)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := kv.ListKeys(context.Background())
	found := false
	for k := range keys.Keys() {
		e, _ := kv.Get(context.Background(), k)
		v := string(e.Value())
		found = found || strings.HasPrefix(k, "learn.") && strings.Contains(v, `"attempt":1`) && strings.Contains(v, `"golden":[{"run_id":"`+runID)
	}
	if !found {
		t.Fatal("no failure summary and golden example in the project's learning record")
	}
	checkExportStable(t, p, runID, helloRepo(t))
}

// fastConfig writes a configuration whose scripted model verifies with a
// cheap command: attempt 1 writes notyet.txt and fails `test -f done.txt`,
// attempt 2 writes done.txt and passes.
func fastConfig(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	plan := `{"summary":"s","steps":[{"description":"write done.txt"}],"creates":["done.txt","notyet.txt"],"verify":[{"name":"done","command":["test","-f","done.txt"]}]}`
	script := `{"responses":[
	  {"phase":"architect","json":` + plan + `},
	  {"phase":"builder","attempt":1,"step":1,"json":{"tool_calls":[{"tool":"write_file","args":{"path":"notyet.txt","content":"x\n"}}]}},
	  {"phase":"builder","attempt":2,"step":1,"json":{"tool_calls":[{"tool":"write_file","args":{"path":"done.txt","content":"x\n"}}]}},
	  {"phase":"builder","step":2,"json":{"done":true,"summary":"ok"}}]}`
	pol := `{"never_touch":[".git/**"],"commands":{"allow":[["test","-f"]]},"destructive":"block","max_changed_lines":100}`
	cfg := `{"providers":{"fast":{"type":"scripted","script":"script.json"}},
	  "routing":{"architect":{"provider":"fast"},"builder":{"provider":"fast"}},
	  "policy":"policy.json"}`
	for name, body := range map[string]string{"script.json": script, "policy.json": pol, "codali.config.json": cfg} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "codali.config.json")
}

// terminals counts the stored terminal events per run. A durable
// consumer on the terminal subjects, created before any run starts and
// never read, keeps them stored (the work stream has interest retention);
// the count is the stream's own per-subject count, so it does not depend
// on a consumer's deliveries (which a server rejoining the cluster can
// hold up) and a redelivery is never counted twice.
func terminals(t *testing.T, js jetstream.JetStream) func() map[string]int {
	t.Helper()
	ctx := context.Background()
	// Durable, so that on a cluster it is replicated like the stream and
	// survives the loss of a server (an ephemeral consumer has one replica).
	name := fmt.Sprintf("test-terminals-%d", time.Now().UnixNano())
	filters := []string{events.KindPassed.FilterSubject(), events.KindFailed.FilterSubject()}
	// On a cluster that just lost a server, creating a replicated
	// consumer can time out while the cluster settles: try again.
	var err error
	for deadline := time.Now().Add(time.Minute); ; {
		_, err = js.CreateConsumer(ctx, events.StreamWork, jetstream.ConsumerConfig{
			Durable: name, FilterSubjects: filters,
			AckPolicy: jetstream.AckExplicitPolicy, DeliverPolicy: jetstream.DeliverNewPolicy,
		})
		if err == nil || !errors.Is(err, context.DeadlineExceeded) || time.Now().After(deadline) {
			break
		}
		t.Logf("creating the terminal events' consumer: %v; trying again", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = js.DeleteConsumer(dctx, events.StreamWork, name)
	})
	// The stream's count per subject, read again while it cannot be read
	// (a cluster electing the stream's leader).
	read := func() (map[string]int, error) {
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		st, err := js.Stream(qctx, events.StreamWork)
		if err != nil {
			return nil, err
		}
		out := map[string]int{}
		for _, f := range filters {
			info, err := st.Info(qctx, jetstream.WithSubjectFilter(f))
			if err != nil {
				return nil, err
			}
			for subject, n := range info.State.Subjects {
				if run, _, err := events.ParseSubject(subject); err == nil {
					out[run] += int(n)
				}
			}
		}
		return out, nil
	}
	return func() map[string]int {
		t.Helper()
		var out map[string]int
		eventually(t, "the terminal events' count", func() bool {
			var err error
			out, err = read()
			return err == nil
		})
		return out
	}
}

func TestConcurrentRunsEndWithExactlyOneTerminalEvent(t *testing.T) {
	p := startUp(t, fastConfig(t))
	_, js := p.js(t)
	count := terminals(t, js)
	const n = 20
	repo := helloRepo(t)
	var wg sync.WaitGroup
	runIDs := make([]string, n)
	errs := make([]string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, out, errOut := p.run(t, "submit", "--repo", repo, "--wait", "--json", "--timeout", "5m", fmt.Sprintf("run %d", i))
			if code != exitOK {
				errs[i] = fmt.Sprintf("run %d exited %d: %s %s", i, code, out, errOut)
				return
			}
			env, v := decodeTerminal(t, out)
			if v.Attempts != 2 {
				errs[i] = fmt.Sprintf("run %d: %d attempts", i, v.Attempts)
			}
			runIDs[i] = env.RunID()
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatalf("%s\nservices:\n%s", e, p.log.String())
		}
	}
	eventually(t, "all terminal events counted", func() bool { return len(count()) == n })
	for run, c := range count() {
		if c != 1 {
			t.Errorf("run %s: %d terminal events, want 1", run, c)
		}
	}
	for _, id := range runIDs {
		if count()[id] != 1 {
			t.Errorf("run %s: terminal events %d", id, count()[id])
		}
	}
}

func TestMalformedRequestsDoNotDisturbGoodRuns(t *testing.T) {
	p := startUp(t, fastConfig(t))
	nc, js := p.js(t)
	count := terminals(t, js)
	failures := map[string]chan string{}
	var mu sync.Mutex
	sub, err := nc.Subscribe(events.KindFailed.FilterSubject(), func(m *nats.Msg) {
		run, _, _ := events.ParseSubject(m.Subject)
		var env events.Envelope
		_ = json.Unmarshal(m.Data, &env)
		var v events.VerdictData
		_ = json.Unmarshal(env.Data, &v)
		mu.Lock()
		ch := failures[run]
		mu.Unlock()
		if ch != nil {
			select {
			case ch <- v.Reason:
			default:
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })

	envelope := func(run string, data string) []byte {
		return []byte(fmt.Sprintf(`{"specversion":"1.0","id":"%s.requested.1","source":"test","type":"dev.codali.run.requested","subject":"%s","attempt":1,"datacontenttype":"application/json","data":%s}`, run, run, data))
	}
	cases := []struct {
		run, want string
		msg       []byte
	}{
		{"badjson", "malformed JSON", []byte(`{"specversion": "1.0", "id": `)},
		{"norepo", "one of path or url", envelope("norepo", `{"request":"x"}`)},
		{"emptyrequest", "request: must not be empty", envelope("emptyrequest", `{"request":"","repo":{"path":"/tmp"}}`)},
		{"missingdir", "could not read repository", envelope("missingdir", `{"request":"x","repo":{"path":"/nonexistent/codali"}}`)},
		{"oversize", "too large", envelope("oversize", `{"request":"`+strings.Repeat("x", 1<<20)+`","repo":{"path":"/tmp"}}`)},
		{"wrongsubject", "does not match", envelope("someoneelse", `{"request":"x","repo":{"path":"/tmp"}}`)},
	}
	for _, tc := range cases {
		mu.Lock()
		failures[tc.run] = make(chan string, 1)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	good := make([]int, 3)
	for i := range good {
		wg.Add(1)
		go func() {
			defer wg.Done()
			good[i], _, _ = p.run(t, "submit", "--repo", helloRepo(t), "--wait", "--timeout", "5m", "good run")
		}()
	}
	for _, tc := range cases {
		if _, err := js.Publish(context.Background(), events.KindRequested.Subject(tc.run), tc.msg); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range cases {
		t.Run(tc.run, func(t *testing.T) {
			mu.Lock()
			ch := failures[tc.run]
			mu.Unlock()
			select {
			case reason := <-ch:
				if !strings.Contains(reason, tc.want) {
					t.Fatalf("reason %q does not mention %q", reason, tc.want)
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("no failed event for %s", tc.run)
			}
		})
	}
	wg.Wait()
	for i, code := range good {
		if code != exitOK {
			t.Fatalf("good run %d exited %d\n%s", i, code, p.log.String())
		}
	}
	eventually(t, "terminal events", func() bool { return len(count()) == len(cases)+len(good) })
	for run, c := range count() {
		if c != 1 {
			t.Errorf("run %s: %d terminal events", run, c)
		}
	}
}

func TestOperatorCancelEndsRunOnce(t *testing.T) {
	dir := t.TempDir()
	plan := `{"summary":"s","steps":[{"description":"slow check"}],"creates":["x.txt"],"verify":[{"name":"slow","command":["sleep","30"]}]}`
	script := `{"responses":[{"phase":"architect","json":` + plan + `},
	  {"phase":"builder","step":1,"json":{"tool_calls":[{"tool":"write_file","args":{"path":"x.txt","content":"x\n"}}]}},
	  {"phase":"builder","step":2,"json":{"done":true}}]}`
	files := map[string]string{
		"script.json": script,
		"policy.json": `{"commands":{"allow":[["sleep"]]}}`,
		"codali.config.json": `{"providers":{"s":{"type":"scripted","script":"script.json"}},
		  "routing":{"architect":{"provider":"s"},"builder":{"provider":"s"}},"policy":"policy.json"}`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := startUp(t, filepath.Join(dir, "codali.config.json"))
	_, js := p.js(t)
	count := terminals(t, js)
	// The request carries a secret: the recorded request is redacted, and
	// the cancel must still be accepted as this run's.
	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "slow run, token=s3cr3t-value")
	if code != exitOK {
		t.Fatalf("submit: %d %s", code, errOut)
	}
	runID := strings.TrimSpace(out)
	eventually(t, "the critic to start verifying", func() bool {
		_, out, _ := p.run(t, "runs", "--json")
		return strings.Contains(out, `"phase": "builder"`)
	})
	if code, out, errOut := p.run(t, "rao", "override", "cancel", runID, "--reason", "wrong repo", "--by", "alice"); code != exitOK {
		t.Fatalf("cancel: %d %s %s", code, out, errOut)
	}
	code, out, _ = p.run(t, "watch", runID, "--json")
	if code != exitFailure || !strings.Contains(out, "canceled") {
		t.Fatalf("watch after cancel: %d %s", code, out)
	}
	// The critic's slow check is interrupted by the cancel, and the run is
	// not ended a second time.
	eventually(t, "the critic to finish", func() bool {
		c, err := js.Consumer(context.Background(), events.StreamWork, events.ServiceCritic)
		if err != nil {
			return false
		}
		info, err := c.Info(context.Background())
		return err == nil && info.NumAckPending == 0 && info.NumPending == 0
	})
	if got := count()[runID]; got != 1 {
		t.Fatalf("terminal events after cancel: %d, want 1", got)
	}
	code, out, _ = p.run(t, "rao", "replay", runID, "--json")
	if code != exitOK || !strings.Contains(out, `"kind": "override"`) || !strings.Contains(out, `"status": "canceled"`) {
		t.Fatalf("history does not record the override: %s", out)
	}
	if code, _, _ := p.run(t, "rao", "override", "cancel", runID, "--reason", "again"); code != exitFailure {
		t.Fatalf("cancelling an ended run should fail, got %d", code)
	}
}

func TestAuditNoteAndTamperDetection(t *testing.T) {
	p := startUp(t, fastConfig(t))
	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "--wait", "--json", "note me")
	if code != exitOK {
		t.Fatalf("submit: %d %s", code, errOut)
	}
	env, _ := decodeTerminal(t, out)
	run := env.RunID()
	eventually(t, "recorded", func() bool {
		_, out, _ := p.run(t, "runs", "--json")
		return strings.Contains(out, `"status": "passed"`)
	})
	if code, out, errOut := p.run(t, "rao", "audit", run, "--note", "checked by hand, key AKIAIOSFODNN7EXAMPLE", "--by", "auditor"); code != exitOK {
		t.Fatalf("audit: %d %s %s", code, out, errOut)
	}
	if code, out, _ := p.run(t, "rao", "verify", run); code != exitOK {
		t.Fatalf("verify after a note: %d %s", code, out)
	}
	_, out, _ = p.run(t, "rao", "replay", run, "--json")
	if !strings.Contains(out, "checked by hand") || strings.Contains(out, "AKIAIOSFODNN7EXAMPLE") {
		t.Fatalf("note missing or unredacted: %s", out)
	}
	// Remove the last event behind the recorder's back: verify must notice.
	_, js := p.js(t)
	s, err := js.Stream(context.Background(), events.StreamRAO)
	if err != nil {
		t.Fatal(err)
	}
	last, err := s.GetLastMsgForSubject(context.Background(), events.RAOSubject(run))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Purge(context.Background(), jetstream.WithPurgeSubject(events.RAOSubject(run)), jetstream.WithPurgeSequence(last.Sequence)); err != nil {
		t.Fatal(err)
	}
	// (purge up to, not including, the last message: keep only the last)
	code, out, _ = p.run(t, "rao", "verify", run)
	if code != exitFailure || !strings.Contains(out, "removed") {
		t.Fatalf("verify after removing events: %d %s", code, out)
	}
	if code, _, errOut := p.run(t, "rao", "verify", "nosuchrun"); code != exitFailure || !strings.Contains(errOut, "no history") {
		t.Fatalf("verify of an unknown run: %d %s", code, errOut)
	}
}

// TestCheckpointEveryOneReplaysIdentically records the same run with a
// snapshot at every event and with the default interval: replay output is
// the same once run ids and timestamps are set aside.
func TestCheckpointEveryOneReplaysIdentically(t *testing.T) {
	replays := make([]string, 2)
	for i, every := range []int{1, 0} {
		ctx, cancel := context.WithCancel(context.Background())
		ready := make(chan string, 1)
		log := &syncbuf.Buffer{}
		c := &cli{stdin: strings.NewReader(""), stdout: &syncbuf.Buffer{}, stderr: log, getenv: os.Getenv}
		done := make(chan int, 1)
		go func() {
			done <- c.up(ctx, upOptions{data: t.TempDir(), listen: "127.0.0.1:0", http: "127.0.0.1:0", workers: "all",
				config: fastConfig(t), level: "warn", ready: ready, checkpointEvery: every, replicas: 1})
		}()
		p := &pipeline{url: <-ready, log: log}
		code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "--wait", "--json", "same run")
		if code != exitOK {
			t.Fatalf("submit: %d %s", code, errOut)
		}
		env, _ := decodeTerminal(t, out)
		eventually(t, "recorded", func() bool {
			_, out, _ := p.run(t, "runs", "--json")
			return strings.Contains(out, `"status": "passed"`)
		})
		_, out, _ = p.run(t, "rao", "replay", env.RunID())
		out = strings.ReplaceAll(out, env.RunID(), "RUN")
		replays[i] = regexp.MustCompile(`\d\d:\d\d:\d\d\.\d\d\d|"(ts|time|created_at|last_updated)": "[^"]*"|session=run#[0-9a-f]+|checksum=sum#[0-9a-f]+|proj#[0-9a-f]+|"(sha256|name)": "[^"]*"|"duration_ms": \d+|"size": \d+|"project": "[^"]*"|"path": "[^"]*"|\d+(\.\d+)?s\b`).ReplaceAllString(out, "X")
		cancel()
		<-done
	}
	if !strings.Contains(replays[0], "state after event") || !strings.Contains(replays[0], `"status": "passed"`) || strings.Count(replays[0], "\n") < 40 {
		t.Fatalf("replay output too thin to compare:\n%s", replays[0])
	}
	if replays[0] != replays[1] {
		t.Fatalf("replay differs with --checkpoint-every 1:\n--- every 1 ---\n%s\n--- default ---\n%s", replays[0], replays[1])
	}
}

// recorded waits until `codali runs` lists a run with status (the
// recorder has folded its verdict).
func (p *pipeline) recorded(t *testing.T, status string) {
	t.Helper()
	eventually(t, "recorder to record the verdict", func() bool {
		_, out, _ := p.run(t, "runs", "--json")
		return strings.Contains(out, `"status": "`+status+`"`)
	})
}
