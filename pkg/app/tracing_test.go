package app

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/activity"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/telemetry"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestRedeliveryDoesNotDuplicatePublishedSpans: the librarian's first
// handling publishes its output but is not acknowledged (it reports a
// transient failure after publishing, as when an ack is lost); the
// redelivered handling's spans are dropped and one span records the
// redelivery. The architect's span continues the run's trace under the
// first handling's span.
func TestRedeliveryDoesNotDuplicatePublishedSpans(t *testing.T) {
	d, js, exp := tracedDeps(t)
	var lib, arch seen
	comps := []Component{
		{Name: events.ServiceLibrarian, NewHandler: func(context.Context, *Deps) (worker.Handler, error) {
			return func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
				lib.add(in.ID)
				_, end := activity.Begin(ctx, activity.Event{Kind: activity.Tool, Name: "index"})
				end(nil)
				out, err := in.Follow(events.KindContext, 1, "codali/librarian", t0, events.ContextData{
					Run: events.Run{Request: events.Requested{Request: "x", Repo: events.RepoRef{Path: "/r"}}}, BundleRef: &events.ArtifactRef{Bucket: "b", Name: "n"}})
				if err != nil {
					return nil, err
				}
				if dl, _ := worker.DeliveryFrom(ctx); dl.Deliveries == 1 {
					out.TraceParent = telemetry.TraceParent(ctx)
					publishOutput(t, d, out)
					return nil, errors.New("ack lost")
				}
				return []events.Envelope{out}, nil
			}, nil
		}},
		{Name: events.ServiceArchitect, NewHandler: func(context.Context, *Deps) (worker.Handler, error) {
			return func(_ context.Context, in events.Envelope) ([]events.Envelope, error) {
				arch.add(in.ID)
				return nil, nil
			}, nil
		}},
	}
	runComponents(t, d, comps, func() {
		publish(t, js, requestedEvent(t, "redeliver"))
		eventually(t, "the redelivery", func() bool { return lib.count("redeliver.requested.1") == 2 && arch.has("redeliver.context.1") })
	})

	spans := exp.GetSpans()
	byName := map[string][]tracetest.SpanStub{}
	want := telemetry.RunTraceID("redeliver")
	for _, s := range spans {
		byName[s.Name] = append(byName[s.Name], s)
		if s.SpanContext.TraceID() != want {
			t.Errorf("span %q in trace %s, want the run's %s", s.Name, s.SpanContext.TraceID(), want)
		}
	}
	first, redelivered, tools, archSpans := byName["librarian requested"], byName["librarian requested (redelivered)"], byName["execute_tool index"], byName["architect context"]
	if len(first) != 1 || len(redelivered) != 1 || len(tools) != 1 || len(archSpans) != 1 {
		names := make([]string, 0, len(spans))
		for _, s := range spans {
			names = append(names, s.Name)
		}
		t.Fatalf("spans: %s", strings.Join(names, ", "))
	}
	if tools[0].Parent.SpanID() != first[0].SpanContext.SpanID() {
		t.Error("the tool span is not the first handling's child")
	}
	if archSpans[0].Parent.SpanID() != first[0].SpanContext.SpanID() {
		t.Error("the architect's span does not continue under the published handling's span")
	}
	r := redelivered[0]
	found := false
	for _, a := range r.Attributes {
		if string(a.Key) == "messaging.delivery_count" && a.Value.AsInt64() == 2 {
			found = true
		}
	}
	if !found || len(r.Events) != 1 || !strings.Contains(r.Events[0].Name, "already published") {
		t.Errorf("redelivery span: %+v %+v", r.Attributes, r.Events)
	}
}

// TestPublishedEventsCarryTraceParent: an output event carries the
// handling span's trace context in its envelope and in a traceparent NATS
// header, and the next phase's span is its child.
func TestPublishedEventsCarryTraceParent(t *testing.T) {
	d, js, exp := tracedDeps(t)
	got := make(chan [2]string, 1)
	comps := []Component{
		{Name: events.ServiceLibrarian, NewHandler: func(context.Context, *Deps) (worker.Handler, error) {
			return func(_ context.Context, in events.Envelope) ([]events.Envelope, error) {
				out, err := in.Follow(events.KindContext, 1, "codali/librarian", t0, events.ContextData{
					Run: events.Run{Request: events.Requested{Request: "x", Repo: events.RepoRef{Path: "/r"}}}, BundleRef: &events.ArtifactRef{Bucket: "b", Name: "n"}})
				return []events.Envelope{out}, err
			}, nil
		}},
		{Name: events.ServiceArchitect, NewHandler: func(context.Context, *Deps) (worker.Handler, error) {
			return func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
				dl, _ := worker.DeliveryFrom(ctx)
				h := dl.Header
				got <- [2]string{in.TraceParent, h.Get(worker.HeaderTraceParent)}
				return nil, nil
			}, nil
		}},
	}
	var tp [2]string
	runComponents(t, d, comps, func() {
		publish(t, js, requestedEvent(t, "headers"))
		select {
		case tp = <-got:
		case <-time.After(60 * time.Second):
			t.Fatal("the architect got nothing")
		}
	})
	if tp[0] == "" || tp[0] != tp[1] {
		t.Fatalf("envelope traceparent %q, header %q", tp[0], tp[1])
	}
	var lib, arch tracetest.SpanStub
	for _, s := range exp.GetSpans() {
		switch s.Name {
		case "librarian requested":
			lib = s
		case "architect context":
			arch = s
		}
	}
	if telemetry.TraceID(tp[0]) != lib.SpanContext.TraceID().String() || !strings.Contains(tp[0], lib.SpanContext.SpanID().String()) ||
		arch.Parent.SpanID() != lib.SpanContext.SpanID() {
		t.Fatalf("traceparent %s, librarian span %s, architect parent %s", tp[0], lib.SpanContext.SpanID(), arch.Parent.SpanID())
	}
}

// TestSpansCarryNoSecrets: what a handling's spans say comes from the
// model, the repository and the commands (a check's name, a command line,
// an error): secrets in it are redacted on span names, attributes, events
// and status as they are in events, logs and the history.
func TestSpansCarryNoSecrets(t *testing.T) {
	const secret = "AKIAIOSFODNN7EXAMPLE"
	d, js, exp := tracedDeps(t)
	handled := make(chan struct{}, 1)
	comps := []Component{
		{Name: events.ServiceLibrarian, NewHandler: func(context.Context, *Deps) (worker.Handler, error) {
			return func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
				_, end := activity.Begin(ctx, activity.Event{Kind: activity.Check, Name: "key " + secret, Detail: "curl -H 'X-Key: " + secret + "'"})
				end(errors.New("exit 1: key " + secret + " rejected"))
				_, end = activity.Begin(ctx, activity.Event{Kind: activity.Tool, Name: secret})
				end(nil)
				select {
				case handled <- struct{}{}:
				default:
				}
				return nil, worker.Permanent(errors.New("clone with token " + secret + " failed"))
			}, nil
		}},
	}
	runComponents(t, d, comps, func() {
		publish(t, js, requestedEvent(t, "secrets"))
		select {
		case <-handled:
		case <-time.After(60 * time.Second):
			t.Fatal("the librarian handled nothing")
		}
	})
	spans := exp.GetSpans()
	if len(spans) < 3 {
		t.Fatalf("%d spans, want the handling's and two activities'", len(spans))
	}
	for _, s := range spans {
		texts := []string{s.Name, s.Status.Description}
		for _, a := range s.Attributes {
			texts = append(texts, a.Value.String())
		}
		for _, e := range s.Events {
			texts = append(texts, e.Name)
			for _, a := range e.Attributes {
				texts = append(texts, a.Value.String())
			}
		}
		for _, text := range texts {
			if strings.Contains(text, secret) {
				t.Errorf("span %q carries the secret: %q", s.Name, text)
			}
		}
	}
}

// TestFailedReasonIsRedacted: a phase's error ends the run with a failed
// event whose reason is the error's text (a provider's error, a command's
// output): agents read it, so it is redacted like every event.
func TestFailedReasonIsRedacted(t *testing.T) {
	const secret = "AKIAIOSFODNN7EXAMPLE"
	d, js, _ := tracedDeps(t)
	comps := []Component{
		{Name: events.ServiceLibrarian, NewHandler: func(context.Context, *Deps) (worker.Handler, error) {
			return func(context.Context, events.Envelope) ([]events.Envelope, error) {
				return nil, worker.Permanent(errors.New("401 from the model server: key " + secret + " is invalid"))
			}, nil
		}},
	}
	st, err := js.Stream(testCtx(t), events.StreamWork)
	if err != nil {
		t.Fatal(err)
	}
	var reason string
	runComponents(t, d, comps, func() {
		publish(t, js, requestedEvent(t, "failsecret"))
		eventually(t, "the failed event", func() bool {
			m, err := st.GetLastMsgForSubject(testCtx(t), events.KindFailed.Subject("failsecret"))
			if err != nil {
				return false
			}
			reason = string(m.Data)
			return true
		})
	})
	if strings.Contains(reason, secret) || !strings.Contains(reason, "401 from the model server") {
		t.Fatalf("failed event: %s", reason)
	}
}

// tracedDeps are the Deps of a test on a provisioned server, their spans
// exported to the returned in-memory exporter.
func tracedDeps(t *testing.T) (*Deps, jetstream.JetStream, *tracetest.InMemoryExporter) {
	t.Helper()
	_, js := provisioned(t)
	d, err := NewDeps(testCtx(t), parseConfig(t, `{}`), js, discard(), func() time.Time { return t0 }, noEnv, nil)
	if err != nil {
		t.Fatal(err)
	}
	exp := tracetest.NewInMemoryExporter()
	d.Tracing = telemetry.NewWithExporter(exp, "test")
	return d, js, exp
}

// runComponents runs comps on d until during returns, stops them, and
// flushes their spans.
func runComponents(t *testing.T, d *Deps, comps []Component, during func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- RunComponents(ctx, d, comps, newMetrics(t), worker.NewHealth()) }()
	during()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := d.Tracing.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
}
