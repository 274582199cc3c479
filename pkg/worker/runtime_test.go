package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/msgid"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
)

type harness struct {
	nc  *nats.Conn
	js  jetstream.JetStream
	ctx context.Context
	// key is the message id key provisioning stored.
	key msgid.Key
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	_, nc, js := natstest.StartJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	if err := bus.Provision(ctx, js, bus.Topology{AckWait: 2 * time.Second}, nil); err != nil {
		t.Fatalf("provision: %v", err)
	}
	key, err := bus.MsgIDKey(ctx, js)
	if err != nil {
		t.Fatalf("load the message id key: %v", err)
	}
	return &harness{nc: nc, js: js, ctx: ctx, key: key}
}

// start runs a runtime for service with handler h until the test ends; the
// returned stop function drains it and waits for Run to return.
func (h *harness) start(t *testing.T, cfg worker.Config, fn worker.Handler) (stop func()) {
	t.Helper()
	if cfg.Backoff.Initial == 0 {
		cfg.Backoff = worker.Backoff{Initial: 20 * time.Millisecond, Max: 100 * time.Millisecond}
	}
	if cfg.AckWait == 0 {
		cfg.AckWait = 2 * time.Second
	}
	cfg.EndRunOnFailure = cfg.Service != events.ServiceRecorder
	if cfg.MsgIDs.IsZero() {
		cfg.MsgIDs = h.key
	}
	rt, err := worker.New(h.js, cfg, fn)
	if err != nil {
		t.Fatalf("new runtime: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rt.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func requested(t *testing.T, runID string) events.Envelope {
	t.Helper()
	env, err := events.New(runID, events.KindRequested, 1, "test", time.Now(),
		events.Requested{Request: "do it", Repo: events.RepoRef{Path: "/repo"}})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func (h *harness) publish(t *testing.T, env events.Envelope) {
	t.Helper()
	subject, err := env.NATSSubject()
	if err != nil {
		t.Fatal(err)
	}
	data, err := env.Encode(0)
	if err != nil {
		t.Fatal(err)
	}
	h.publishRaw(t, subject, data)
}

func (h *harness) publishRaw(t *testing.T, subject string, data []byte) {
	t.Helper()
	if _, err := h.js.Publish(h.ctx, subject, data); err != nil {
		t.Fatalf("publish %s: %v", subject, err)
	}
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
	}
}

// messages returns the messages currently stored on subject.
func (h *harness) messages(t *testing.T, stream, subject string) []*jetstream.RawStreamMsg {
	t.Helper()
	s, err := h.js.Stream(h.ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	var out []*jetstream.RawStreamMsg
	info, err := s.Info(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := s.GetMsg(h.ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if m.Subject == subject {
			out = append(out, m)
		}
	}
	return out
}

func (h *harness) consumerInfo(t *testing.T, name string) *jetstream.ConsumerInfo {
	t.Helper()
	c, err := h.js.Consumer(h.ctx, events.StreamWork, name)
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Info(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func decodeVerdict(t *testing.T, m *jetstream.RawStreamMsg) events.VerdictData {
	t.Helper()
	env, err := events.Decoder{}.Decode(m.Subject, m.Data)
	if err != nil {
		t.Fatalf("decode %s: %v", m.Subject, err)
	}
	var v events.VerdictData
	if err := events.DecodeData(env, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// contextOut is the librarian-like output of a handler.
func contextOut(in events.Envelope) ([]events.Envelope, error) {
	out, err := in.Follow(events.KindContext, in.Attempt, "test", time.Now(), events.ContextData{
		Run: events.RunOf(in), Bundle: &events.ContextBundle{}, Summary: "ctx",
	})
	return []events.Envelope{out}, err
}

func TestAckOnlyAfterOutputPublished(t *testing.T) {
	h := newHarness(t)
	// Make the output's subject full so its publish is refused.
	if _, err := h.js.UpdateStream(h.ctx, func() jetstream.StreamConfig {
		c := bus.Topology{Replicas: 1, MaxMsgSize: 8 << 20}.WorkStream()
		c.MaxMsgsPerSubject = 1
		c.Discard = jetstream.DiscardNew
		c.DiscardNewPerSubject = true
		c.MaxAge = time.Hour
		return c
	}()); err != nil {
		t.Fatal(err)
	}
	blocker, _ := events.New("run1", events.KindContext, 9, "test", time.Now(), map[string]string{"x": "y"})
	h.publish(t, blocker)

	var calls atomic.Int32
	h.start(t, worker.Config{Service: events.ServiceLibrarian}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		calls.Add(1)
		return contextOut(in)
	})
	h.publish(t, requested(t, "run1"))
	waitFor(t, "two deliveries", func() bool { return calls.Load() >= 2 })
	if info := h.consumerInfo(t, events.ServiceLibrarian); info.AckFloor.Stream != 0 {
		t.Fatalf("input acked although its output could not be published: ack floor %d", info.AckFloor.Stream)
	}
	// Free the subject: the next delivery publishes and only then acks.
	s, _ := h.js.Stream(h.ctx, events.StreamWork)
	if err := s.Purge(h.ctx, jetstream.WithPurgeSubject(events.KindContext.Subject("run1"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "output published", func() bool {
		return len(h.messages(t, events.StreamWork, events.KindContext.Subject("run1"))) == 1
	})
	waitFor(t, "input acked", func() bool {
		return h.consumerInfo(t, events.ServiceLibrarian).NumAckPending == 0
	})
}

func TestRedeliveredRepublishIsDeduplicated(t *testing.T) {
	h := newHarness(t)
	var calls atomic.Int32
	h.start(t, worker.Config{Service: events.ServiceLibrarian}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		outs, err := contextOut(in)
		if err != nil {
			return nil, err
		}
		if calls.Add(1) == 1 {
			// Simulate a crash after the output was published but before
			// the ack: publish it ourselves, as the runtime would, then fail.
			m, err := worker.EventMsg(outs[0], events.DefaultMaxEventBytes, h.key)
			if err != nil {
				return nil, err
			}
			if _, err := h.js.PublishMsg(ctx, m); err != nil {
				return nil, err
			}
			return nil, errors.New("crash after publish")
		}
		return outs, nil
	})
	h.publish(t, requested(t, "dedup"))
	waitFor(t, "settled", func() bool { return calls.Load() == 2 && h.settledAck(t, events.ServiceLibrarian) })
	if got := len(h.messages(t, events.StreamWork, events.KindContext.Subject("dedup"))); got != 1 {
		t.Fatalf("context events stored = %d, want 1 (de-duplicated)", got)
	}
}

// settledAck reports whether everything delivered was acked.
func (h *harness) settledAck(t *testing.T, name string) bool {
	info := h.consumerInfo(t, name)
	return info.NumPending == 0 && info.NumAckPending == 0
}

func TestPermanentErrorTermsAndFailsRun(t *testing.T) {
	h := newHarness(t)
	var calls atomic.Int32
	h.start(t, worker.Config{Service: events.ServiceLibrarian}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		calls.Add(1)
		return nil, fmt.Errorf("repo is not a directory: %w", worker.ErrPermanent)
	})
	h.publish(t, requested(t, "perm"))
	var failed []*jetstream.RawStreamMsg
	waitFor(t, "failed event", func() bool {
		failed = h.messages(t, events.StreamWork, events.KindFailed.Subject("perm"))
		return len(failed) == 1
	})
	v := decodeVerdict(t, failed[0])
	if v.Status != events.StatusFailed || v.Phase != events.ServiceLibrarian || !strings.Contains(v.Reason, "repo is not a directory") {
		t.Fatalf("verdict = %+v", v)
	}
	if v.Run.Request.Request != "do it" {
		t.Fatalf("failed event lost the request: %+v", v.Run)
	}
	waitFor(t, "settled", func() bool { return h.settledAck(t, events.ServiceLibrarian) })
	if calls.Load() != 1 {
		t.Fatalf("handler called %d times, want 1 (terminated, not redelivered)", calls.Load())
	}
}

func TestTransientErrorRedeliversWithBackoff(t *testing.T) {
	h := newHarness(t)
	var mu sync.Mutex
	var times []time.Time
	initial := 150 * time.Millisecond
	h.start(t, worker.Config{Service: events.ServiceLibrarian,
		Backoff: worker.Backoff{Initial: initial, Max: time.Second, Multiplier: 2, Jitter: 0.01}},
		func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
			mu.Lock()
			times = append(times, time.Now())
			n := len(times)
			mu.Unlock()
			if n < 3 {
				return nil, errors.New("model timeout")
			}
			return contextOut(in)
		})
	h.publish(t, requested(t, "trans"))
	waitFor(t, "output", func() bool {
		return len(h.messages(t, events.StreamWork, events.KindContext.Subject("trans"))) == 1
	})
	mu.Lock()
	defer mu.Unlock()
	if len(times) != 3 {
		t.Fatalf("deliveries = %d, want 3", len(times))
	}
	// Exponential: the second wait is about twice the first.
	first, second := times[1].Sub(times[0]), times[2].Sub(times[1])
	if first < initial*9/10 || second < 2*initial*9/10 {
		t.Fatalf("redelivery gaps %s, %s; want >= %s and >= %s", first, second, initial, 2*initial)
	}
	if n := len(h.messages(t, events.StreamWork, events.KindFailed.Subject("trans"))); n != 0 {
		t.Fatalf("transient failure ended the run")
	}
}

func TestMaxDeliverDeadLettersAndFailsRun(t *testing.T) {
	h := newHarness(t)
	var calls atomic.Int32
	h.start(t, worker.Config{Service: events.ServiceLibrarian, MaxDeliver: 3},
		func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
			calls.Add(1)
			return nil, errors.New("upstream 503")
		})
	h.publish(t, requested(t, "dlq"))
	var dl []*jetstream.RawStreamMsg
	waitFor(t, "dead letter", func() bool {
		dl = h.messages(t, events.StreamDeadLetter, events.DeadLetterSubject(events.ServiceLibrarian))
		return len(dl) == 1
	})
	if r := dl[0].Header.Get(events.HeaderDeadLetterReason); !strings.Contains(r, "upstream 503") || !strings.Contains(r, "3 deliveries") {
		t.Fatalf("dead-letter reason = %q", r)
	}
	if s := dl[0].Header.Get(events.HeaderDeadLetterSubject); s != events.KindRequested.Subject("dlq") {
		t.Fatalf("dead-letter subject header = %q", s)
	}
	var failed []*jetstream.RawStreamMsg
	waitFor(t, "failed event", func() bool {
		failed = h.messages(t, events.StreamWork, events.KindFailed.Subject("dlq"))
		return len(failed) == 1
	})
	if v := decodeVerdict(t, failed[0]); !strings.Contains(v.Reason, "upstream 503") {
		t.Fatalf("reason = %q", v.Reason)
	}
	waitFor(t, "settled", func() bool { return h.settledAck(t, events.ServiceLibrarian) })
	if calls.Load() != 3 {
		t.Fatalf("handler calls = %d, want 3", calls.Load())
	}
}

func TestMalformedEvents(t *testing.T) {
	h := newHarness(t)
	var calls atomic.Int32
	h.start(t, worker.Config{Service: events.ServiceLibrarian}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		calls.Add(1)
		return contextOut(in)
	})
	big := requested(t, "huge")
	big.Data = json.RawMessage(`{"request":"` + strings.Repeat("x", events.DefaultMaxEventBytes) + `","repo":{"path":"/r"}}`)
	bigData, _ := json.Marshal(big)
	wrongSubject := requested(t, "other")
	wrongData, _ := wrongSubject.Encode(0)
	cases := []struct {
		name    string
		subject string
		data    []byte
		want    string
	}{
		{"bad json", events.KindRequested.Subject("badjson"), []byte(`{"specversion":`), "malformed JSON"},
		{"wrong specversion", events.KindRequested.Subject("badspec"), []byte(`{"specversion":"0.3","id":"a","source":"s","type":"dev.codali.run.requested","subject":"badspec","attempt":1,"data":{}}`), "specversion"},
		{"missing id", events.KindRequested.Subject("noid"), []byte(`{"specversion":"1.0","source":"s","type":"dev.codali.run.requested","subject":"noid","attempt":1,"data":{}}`), "id"},
		{"subject mismatch", events.KindRequested.Subject("mismatch"), wrongData, "does not match"},
		{"oversize", events.KindRequested.Subject("huge"), bigData, "too large"},
	}
	for _, tc := range cases {
		h.publishRaw(t, tc.subject, tc.data)
	}
	// A good run alongside the malformed ones is not disturbed.
	h.publish(t, requested(t, "good"))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runID, _, _ := events.ParseSubject(tc.subject)
			var failed []*jetstream.RawStreamMsg
			waitFor(t, "failed "+runID, func() bool {
				failed = h.messages(t, events.StreamWork, events.KindFailed.Subject(runID))
				return len(failed) == 1
			})
			if v := decodeVerdict(t, failed[0]); !strings.Contains(v.Reason, tc.want) {
				t.Fatalf("reason %q does not mention %q", v.Reason, tc.want)
			}
		})
	}
	waitFor(t, "good run handled", func() bool {
		return len(h.messages(t, events.StreamWork, events.KindContext.Subject("good"))) == 1
	})
	if calls.Load() != 1 {
		t.Fatalf("handler ran %d times, want only for the good run", calls.Load())
	}
}

func TestUnreadableRunIDIsDeadLettered(t *testing.T) {
	h := newHarness(t)
	h.start(t, worker.Config{Service: events.ServiceLibrarian}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		return contextOut(in)
	})
	h.publishRaw(t, "codali.run.bad~id.requested", []byte(`{"specversion":"1.0"}`))
	waitFor(t, "dead letter", func() bool {
		dl := h.messages(t, events.StreamDeadLetter, events.DeadLetterSubject(events.ServiceLibrarian))
		return len(dl) == 1 && strings.Contains(dl[0].Header.Get(events.HeaderDeadLetterReason), "bad run id")
	})
}

func TestPanicEndsRun(t *testing.T) {
	h := newHarness(t)
	h.start(t, worker.Config{Service: events.ServiceLibrarian}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		panic("boom")
	})
	h.publish(t, requested(t, "panics"))
	waitFor(t, "failed event", func() bool {
		f := h.messages(t, events.StreamWork, events.KindFailed.Subject("panics"))
		return len(f) == 1 && strings.Contains(decodeVerdict(t, f[0]).Reason, "panicked: boom")
	})
}

func TestRecorderPermanentErrorIsDeadLetteredNotFailed(t *testing.T) {
	h := newHarness(t)
	h.start(t, worker.Config{Service: events.ServiceRecorder}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		return nil, worker.Permanentf("cannot fold")
	})
	h.publish(t, requested(t, "rec"))
	waitFor(t, "dead letter", func() bool {
		return len(h.messages(t, events.StreamDeadLetter, events.DeadLetterSubject(events.ServiceRecorder))) == 1
	})
	if n := len(h.messages(t, events.StreamWork, events.KindFailed.Subject("rec"))); n != 0 {
		t.Fatalf("recorder ended the run")
	}
}

func TestDeadLetterReasonIsRedacted(t *testing.T) {
	h := newHarness(t)
	const secret = "AKIAIOSFODNN7EXAMPLE"
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }
	h.start(t, worker.Config{Service: events.ServiceRecorder, Redact: redact}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		return nil, worker.Permanentf("provider said: key %s is not valid", secret)
	})
	h.publish(t, requested(t, "dlq-secret"))
	var reason string
	waitFor(t, "dead letter", func() bool {
		dl := h.messages(t, events.StreamDeadLetter, events.DeadLetterSubject(events.ServiceRecorder))
		if len(dl) != 1 {
			return false
		}
		reason = dl[0].Header.Get(events.HeaderDeadLetterReason)
		return true
	})
	if strings.Contains(reason, secret) || !strings.Contains(reason, "key [REDACTED] is not valid") {
		t.Fatalf("dead-letter reason %q, want it redacted", reason)
	}
}

// TestFailedReasonIsRedactedBeforeItIsCut: the reason of the failed event
// is redacted, and before it is cut to its 8 KiB: a secret across the
// limit, cut first, was no longer recognised and its first half was kept.
func TestFailedReasonIsRedactedBeforeItIsCut(t *testing.T) {
	h := newHarness(t)
	const secret = "AKIAIOSFODNN7EXAMPLE"
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }
	h.start(t, worker.Config{Service: events.ServiceLibrarian, Redact: redact}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		// The secret straddles the 8192 bytes kept of the reason:
		// "librarian: " (11 bytes), 8170, " key " (5): the secret starts at
		// 8186.
		return nil, worker.Permanentf("%s key %s", strings.Repeat("x", 8170), secret)
	})
	h.publish(t, requested(t, "cut-secret"))
	var failed []*jetstream.RawStreamMsg
	waitFor(t, "failed event", func() bool {
		failed = h.messages(t, events.StreamWork, events.KindFailed.Subject("cut-secret"))
		return len(failed) == 1
	})
	v := decodeVerdict(t, failed[0])
	if strings.Contains(v.Reason, "AKIA") || !strings.HasSuffix(v.Reason, "…(truncated)") {
		t.Fatalf("failed reason ends %q, want the secret redacted, then the reason cut", v.Reason[len(v.Reason)-60:])
	}
}

func TestDrainFinishesInFlightHandlers(t *testing.T) {
	h := newHarness(t)
	started := make(chan struct{})
	release := make(chan struct{})
	stop := h.start(t, worker.Config{Service: events.ServiceLibrarian}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		close(started)
		<-release
		return contextOut(in)
	})
	h.publish(t, requested(t, "drain"))
	<-started
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("Run returned while a handler was in flight")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	<-stopped
	if n := len(h.messages(t, events.StreamWork, events.KindContext.Subject("drain"))); n != 1 {
		t.Fatalf("in-flight output not published before exit: %d", n)
	}
	if info := h.consumerInfo(t, events.ServiceLibrarian); info.NumAckPending != 0 {
		t.Fatalf("in-flight input not acked before exit: %+v", info)
	}
}

func TestLongHandlerSendsInProgress(t *testing.T) {
	h := newHarness(t)
	var calls atomic.Int32
	h.start(t, worker.Config{Service: events.ServiceLibrarian, AckWait: time.Second}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		calls.Add(1)
		select { // work that outlasts the ack wait twice over
		case <-time.After(2500 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return contextOut(in)
	})
	// The consumer's ack wait must match for the keep-alive to matter.
	if _, err := h.js.CreateOrUpdateConsumer(h.ctx, events.StreamWork, func() jetstream.ConsumerConfig {
		c := bus.Topology{AckWait: time.Second}.ConsumerConfig(events.ServiceLibrarian)
		return c
	}()); err != nil {
		t.Fatal(err)
	}
	h.publish(t, requested(t, "slow"))
	waitFor(t, "output", func() bool {
		return len(h.messages(t, events.StreamWork, events.KindContext.Subject("slow"))) == 1
	})
	if calls.Load() != 1 {
		t.Fatalf("handler ran %d times: the message was redelivered during a long handler", calls.Load())
	}
}

func TestMetricsAndConfig(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := worker.NewMetrics(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := worker.NewMetrics(reg); err == nil {
		t.Fatal("registering metrics twice should fail")
	}
	_, err := worker.New(nil, worker.Config{Concurrency: -1, AckWait: time.Millisecond, Backoff: worker.Backoff{Jitter: 2}}, nil)
	if !errors.Is(err, worker.ErrInvalidConfig) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"service name", "message id key", "concurrency", "ack wait", "jitter"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("config error does not mention %q: %v", want, err)
		}
	}
}

func TestRunWithoutConsumer(t *testing.T) {
	_, _, js := natstest.StartJS(t)
	key, err := msgid.Random()
	if err != nil {
		t.Fatal(err)
	}
	rt, err := worker.New(js, worker.Config{Service: "librarian", MsgIDs: key}, func(context.Context, events.Envelope) ([]events.Envelope, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Run(context.Background()); !errors.Is(err, worker.ErrConsumerMissing) {
		t.Fatalf("err = %v, want ErrConsumerMissing", err)
	}
}

type slowDown struct{ after time.Duration }

func (e slowDown) Error() string             { return "429 too many requests" }
func (e slowDown) RetryAfter() time.Duration { return e.after }

func TestRetryAfterIsHonoured(t *testing.T) {
	h := newHarness(t)
	var mu sync.Mutex
	var times []time.Time
	h.start(t, worker.Config{Service: events.ServiceLibrarian}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		mu.Lock()
		times = append(times, time.Now())
		n := len(times)
		mu.Unlock()
		if n == 1 {
			return nil, fmt.Errorf("model: %w", slowDown{after: 400 * time.Millisecond})
		}
		return contextOut(in)
	})
	h.publish(t, requested(t, "slowdown"))
	waitFor(t, "output", func() bool {
		return len(h.messages(t, events.StreamWork, events.KindContext.Subject("slowdown"))) == 1
	})
	mu.Lock()
	defer mu.Unlock()
	if gap := times[1].Sub(times[0]); gap < 350*time.Millisecond {
		t.Fatalf("redelivered after %s, before the server's Retry-After of 400ms", gap)
	}
}

func TestCompleteFailureHook(t *testing.T) {
	h := newHarness(t)
	h.start(t, worker.Config{Service: events.ServiceLibrarian, CompleteFailure: func(runID string, attempt int, v *events.VerdictData) {
		v.Run.Codex = "payload for " + runID
	}}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		return nil, worker.Permanentf("no")
	})
	h.publish(t, requested(t, "hooked"))
	waitFor(t, "failed event", func() bool {
		f := h.messages(t, events.StreamWork, events.KindFailed.Subject("hooked"))
		return len(f) == 1 && decodeVerdict(t, f[0]).Run.Codex == "payload for hooked"
	})
}

func TestHandlerSeesItsDelivery(t *testing.T) {
	h := newHarness(t)
	got := make(chan worker.Delivery, 1)
	h.start(t, worker.Config{Service: events.ServiceRecorder}, func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		d, ok := worker.DeliveryFrom(ctx)
		if !ok {
			return nil, worker.Permanentf("no delivery in the handler's context")
		}
		got <- d
		return nil, nil
	})
	h.publish(t, requested(t, "delivery"))
	select {
	case d := <-got:
		if d.StreamSeq != 1 || d.Deliveries != 1 {
			t.Fatalf("delivery %+v, want stream seq 1, first delivery", d)
		}
	case <-h.ctx.Done():
		t.Fatal("handler not called")
	}
	if _, ok := worker.DeliveryFrom(context.Background()); ok {
		t.Fatal("a plain context carries a delivery")
	}
}
