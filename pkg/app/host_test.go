package app

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
)

// eventually polls cond every 20ms until it holds or 20s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
	}
}

// seen records the events a fake handler got.
type seen struct {
	mu  sync.Mutex
	ids []string
}

func (s *seen) add(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids = append(s.ids, id)
}

func (s *seen) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.ids {
		if x == id {
			return true
		}
	}
	return false
}

func (s *seen) count(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, x := range s.ids {
		if x == id {
			n++
		}
	}
	return n
}

func publish(t *testing.T, js jetstream.JetStream, e events.Envelope) {
	t.Helper()
	raw, err := e.Encode(0)
	if err != nil {
		t.Fatal(err)
	}
	subj, _ := e.NATSSubject()
	if _, err := js.Publish(testCtx(t), subj, raw, jetstream.WithMsgID(e.ID)); err != nil {
		t.Fatal(err)
	}
}

// publishOutput publishes e as a service's runtime does (worker.EventMsg
// with d's message id key): a test's "published before the ack was lost".
func publishOutput(t *testing.T, d *Deps, e events.Envelope) {
	t.Helper()
	m, err := worker.EventMsg(e, 0, d.MsgIDs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.JS.PublishMsg(testCtx(t), m); err != nil {
		t.Fatal(err)
	}
}

func requestedEvent(t *testing.T, run string) events.Envelope {
	t.Helper()
	e, err := events.New(run, events.KindRequested, 1, "agent/test", t0, events.Requested{Request: "x", Repo: events.RepoRef{Path: "/r"}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func newMetrics(t *testing.T) *worker.Metrics {
	t.Helper()
	m, err := worker.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRunComponentsPipeline: two components run, hand an event on through
// the stream, report ready, and drain when the context ends.
func TestRunComponentsPipeline(t *testing.T) {
	_, js := provisioned(t)
	d, err := NewDeps(testCtx(t), parseConfig(t, `{}`), js, discard(), func() time.Time { return t0 }, noEnv, nil)
	if err != nil {
		t.Fatal(err)
	}
	var lib, arch seen
	var inflight sync.WaitGroup
	release := make(chan struct{})
	comps := []Component{
		{Name: events.ServiceLibrarian, NewHandler: func(context.Context, *Deps) (worker.Handler, error) {
			return func(_ context.Context, in events.Envelope) ([]events.Envelope, error) {
				lib.add(in.ID)
				out, err := in.Follow(events.KindContext, 1, "codali/librarian", t0, events.ContextData{
					Run: events.Run{Request: events.Requested{Request: "x", Repo: events.RepoRef{Path: "/r"}}}, BundleRef: &events.ArtifactRef{Bucket: "b", Name: "n"}})
				return []events.Envelope{out}, err
			}, nil
		}},
		{Name: events.ServiceArchitect, NewHandler: func(context.Context, *Deps) (worker.Handler, error) {
			return func(_ context.Context, in events.Envelope) ([]events.Envelope, error) {
				arch.add(in.ID)
				if in.RunID() == "slow" {
					inflight.Done()
					<-release // still working when the shutdown starts
				}
				return nil, nil
			}, nil
		}},
	}
	health := worker.NewHealth()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- RunComponents(ctx, d, comps, newMetrics(t), health) }()
	publish(t, js, requestedEvent(t, "run1"))
	eventually(t, "the librarian's output reaches the architect", func() bool { return arch.has("run1.context.1") })
	if err := health.Ready(); err != nil {
		t.Errorf("not ready while consuming: %v", err)
	}
	if !lib.has("run1.requested.1") {
		t.Error("librarian did not see the request")
	}
	// An event in flight at shutdown is finished before RunComponents returns.
	inflight.Add(1)
	publish(t, js, requestedEvent(t, "slow"))
	inflight.Wait()
	cancel()
	select {
	case err := <-done:
		t.Fatalf("RunComponents returned %v while a handler was still running", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("RunComponents: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("RunComponents did not drain")
	}
	err = health.Ready()
	if err == nil || !strings.Contains(err.Error(), events.ServiceLibrarian) || !strings.Contains(err.Error(), events.ServiceArchitect) {
		t.Errorf("readiness after draining: %v, want both components not ready", err)
	}
	// The drained event was acknowledged: a new runtime does not get it again.
	info, err := js.Consumer(testCtx(t), events.StreamWork, events.ServiceArchitect)
	if err != nil {
		t.Fatal(err)
	}
	ci, err := info.Info(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if ci.NumAckPending != 0 || ci.NumPending != 0 {
		t.Errorf("architect consumer: %d pending acks, %d pending after drain", ci.NumAckPending, ci.NumPending)
	}
	if arch.count("slow.context.1") != 1 {
		t.Errorf("slow event handled %d times", arch.count("slow.context.1"))
	}
}

func TestRunComponentsErrors(t *testing.T) {
	boom := errors.New("boom")
	ok := func(context.Context, *Deps) (worker.Handler, error) {
		return func(context.Context, events.Envelope) ([]events.Envelope, error) { return nil, nil }, nil
	}
	cases := []struct {
		name  string
		comps []Component
		// prepare changes the server before RunComponents starts.
		prepare func(t *testing.T, js jetstream.JetStream)
		is      error
		want    string
	}{
		{"a handler that cannot be built", []Component{
			{Name: events.ServiceLibrarian, NewHandler: ok},
			{Name: events.ServiceCritic, NewHandler: func(context.Context, *Deps) (worker.Handler, error) { return nil, boom }},
		}, nil, boom, "could not start critic"},
		{"a component without its consumer", []Component{
			{Name: events.ServiceLibrarian, NewHandler: ok},
			{Name: events.ServiceCritic, NewHandler: ok},
		}, func(t *testing.T, js jetstream.JetStream) {
			if err := js.DeleteConsumer(testCtx(t), events.StreamWork, events.ServiceCritic); err != nil {
				t.Fatal(err)
			}
		}, worker.ErrConsumerMissing, "critic"},
		{"no runs bucket", []Component{{Name: events.ServiceLibrarian, NewHandler: ok}},
			func(t *testing.T, js jetstream.JetStream) {
				if err := js.DeleteKeyValue(testCtx(t), events.BucketRuns); err != nil {
					t.Fatal(err)
				}
			}, jetstream.ErrBucketNotFound, events.BucketRuns},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, js := provisioned(t)
			d, err := NewDeps(testCtx(t), parseConfig(t, `{}`), js, discard(), time.Now, noEnv, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.prepare != nil {
				tc.prepare(t, js)
			}
			// ctx never ends: RunComponents must return on its own.
			done := make(chan error, 1)
			go func() { done <- RunComponents(context.Background(), d, tc.comps, newMetrics(t), worker.NewHealth()) }()
			select {
			case err := <-done:
				if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("RunComponents = %v, want %v mentioning %q", err, tc.is, tc.want)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("RunComponents did not stop on its own")
			}
		})
	}
}

func TestConcurrencyFor(t *testing.T) {
	for _, s := range events.Services() {
		if n := concurrencyFor(s); n < 1 {
			t.Errorf("%s: concurrency %d", s, n)
		}
	}
}

// TestSkipEnded: work of an ended run is dropped before and after the
// handler; running and unknown runs are handled.
func TestSkipEnded(t *testing.T) {
	_, js := provisioned(t)
	runs, err := audit.OpenRuns(testCtx(t), js)
	if err != nil {
		t.Fatal(err)
	}
	for id, status := range map[string]string{"running": audit.StatusRunning, "passed": audit.StatusPassed, "cancelled": audit.StatusCancelled, "ends-now": audit.StatusRunning} {
		if err := runs.Put(testCtx(t), audit.Summary{RunID: id, Status: status}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		run        string
		called     bool
		wantOutput bool
	}{
		{"running", true, true},
		{"unknown", true, true},
		{"passed", false, false},
		{"cancelled", false, false},
		{"ends-now", true, false}, // the run ends while the handler works
	}
	for _, tc := range cases {
		t.Run(tc.run, func(t *testing.T) {
			called := false
			h := skipEnded(runs, discard(), events.ServiceArchitect, func(_ context.Context, in events.Envelope) ([]events.Envelope, error) {
				called = true
				if in.RunID() == "ends-now" {
					if err := runs.Put(testCtx(t), audit.Summary{RunID: "ends-now", Status: audit.StatusCancelled}); err != nil {
						t.Fatal(err)
					}
				}
				out, err := in.Follow(events.KindPlan, 1, "codali/architect", t0, map[string]any{"x": 1})
				return []events.Envelope{out}, err
			})
			outs, err := h(testCtx(t), requestedEvent(t, tc.run))
			if err != nil {
				t.Fatal(err)
			}
			if called != tc.called || (len(outs) > 0) != tc.wantOutput {
				t.Errorf("called %v outputs %d, want called %v outputs %v", called, len(outs), tc.called, tc.wantOutput)
			}
		})
	}
	t.Run("handler errors pass through", func(t *testing.T) {
		boom := errors.New("boom")
		h := skipEnded(runs, discard(), events.ServiceArchitect, func(context.Context, events.Envelope) ([]events.Envelope, error) { return nil, boom })
		if _, err := h(testCtx(t), requestedEvent(t, "running")); !errors.Is(err, boom) {
			t.Errorf("err = %v", err)
		}
	})
}
