package app

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/telemetry"
	"github.com/codali-dev/codali/pkg/worker"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestAgentTraceContext: a request's traceparent is the agent's. By
// default ("parent") the run joins that trace: the handling's span is
// its child. Under tracing.agentTraceContext "link" the span is a new
// root in the run's own trace (telemetry.RunTraceID) with a link to the
// agent's context, so an agent cannot attach a run to a trace whose id
// it knows. Either way the next phase's span is the child of the one
// that published its event (a service's trace context is followed).
func TestAgentTraceContext(t *testing.T) {
	const foreignTrace, foreignSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	for _, mode := range []string{config.TraceContextParent, config.TraceContextLink} {
		t.Run(mode, func(t *testing.T) {
			d, js, exp := tracedDeps(t)
			d.Config.Tracing.AgentTraceContext = mode
			got := make(chan string, 1)
			comps := []Component{
				{Name: events.ServiceLibrarian, NewHandler: func(context.Context, *Deps) (worker.Handler, error) {
					return func(_ context.Context, in events.Envelope) ([]events.Envelope, error) {
						out, err := in.Follow(events.KindContext, 1, "codali/librarian", t0, events.ContextData{
							Run: events.Run{Request: events.Requested{Request: "x", Repo: events.RepoRef{Path: "/r"}}}, BundleRef: &events.ArtifactRef{Bucket: "b", Name: "n"}})
						return []events.Envelope{out}, err
					}, nil
				}},
				{Name: events.ServiceArchitect, NewHandler: func(context.Context, *Deps) (worker.Handler, error) {
					return func(_ context.Context, in events.Envelope) ([]events.Envelope, error) {
						got <- in.TraceParent
						return nil, nil
					}, nil
				}},
			}
			run := "agenttrace" + mode
			req := requestedEvent(t, run)
			req.TraceParent = "00-" + foreignTrace + "-" + foreignSpan + "-01"
			var tp string
			runComponents(t, d, comps, func() {
				publish(t, js, req)
				select {
				case tp = <-got:
				case <-time.After(60 * time.Second):
					t.Fatal("the architect got nothing")
				}
			})
			var lib, arch tracetest.SpanStub
			for _, s := range exp.GetSpans() {
				switch s.Name {
				case "librarian requested":
					lib = s
				case "architect context":
					arch = s
				}
			}
			if arch.Parent.SpanID() != lib.SpanContext.SpanID() || arch.SpanContext.TraceID() != lib.SpanContext.TraceID() ||
				telemetry.TraceID(tp) != lib.SpanContext.TraceID().String() {
				t.Fatalf("the architect's span %s (parent %s) does not follow the librarian's %s (traceparent %s)",
					arch.SpanContext.SpanID(), arch.Parent.SpanID(), lib.SpanContext.SpanID(), tp)
			}
			switch mode {
			case config.TraceContextParent:
				if lib.SpanContext.TraceID().String() != foreignTrace || lib.Parent.SpanID().String() != foreignSpan || len(lib.Links) != 0 {
					t.Fatalf("librarian span in trace %s, parent %s, links %d: want the agent's trace and span",
						lib.SpanContext.TraceID(), lib.Parent.SpanID(), len(lib.Links))
				}
			case config.TraceContextLink:
				if lib.SpanContext.TraceID() != telemetry.RunTraceID(run) || lib.Parent.IsValid() {
					t.Fatalf("librarian span in trace %s with parent %s: want a root in the run's trace %s",
						lib.SpanContext.TraceID(), lib.Parent.SpanID(), telemetry.RunTraceID(run))
				}
				if len(lib.Links) != 1 || lib.Links[0].SpanContext.TraceID().String() != foreignTrace || lib.Links[0].SpanContext.SpanID().String() != foreignSpan {
					t.Fatalf("links %+v: want one to the agent's context", lib.Links)
				}
			}
		})
	}
}

// TestAgentTraceContextOfARunTheRuntimeEnds: the runtime ends a run whose
// request the librarian failed for good with a `failed` event of its own
// making, outside the handling's span. Under "link" that event must not
// carry the agent's trace context onward (in its envelope or its NATS
// header), as no other output of an agent's event does: whatever follows
// it would join the agent's trace. Under "parent" it carries it, as
// documented.
func TestAgentTraceContextOfARunTheRuntimeEnds(t *testing.T) {
	const foreignTrace, foreignSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	for _, mode := range []string{config.TraceContextParent, config.TraceContextLink} {
		t.Run(mode, func(t *testing.T) {
			d, js, _ := tracedDeps(t)
			d.Config.Tracing.AgentTraceContext = mode
			comps := []Component{
				{Name: events.ServiceLibrarian, NewHandler: func(context.Context, *Deps) (worker.Handler, error) {
					return func(context.Context, events.Envelope) ([]events.Envelope, error) {
						return nil, worker.Permanent(errors.New("the repository cannot be read"))
					}, nil
				}},
			}
			st, err := js.Stream(testCtx(t), events.StreamWork)
			if err != nil {
				t.Fatal(err)
			}
			run := "agentfail" + mode
			req := requestedEvent(t, run)
			req.TraceParent = "00-" + foreignTrace + "-" + foreignSpan + "-01"
			var failed events.Envelope
			var header string
			runComponents(t, d, comps, func() {
				publish(t, js, req)
				eventually(t, "the failed event", func() bool {
					m, err := st.GetLastMsgForSubject(testCtx(t), events.KindFailed.Subject(run))
					if err != nil {
						return false
					}
					if failed, err = (events.Decoder{}).Decode(m.Subject, m.Data); err != nil {
						t.Fatal(err)
					}
					header = m.Header.Get(worker.HeaderTraceParent)
					return true
				})
			})
			switch mode {
			case config.TraceContextParent:
				if telemetry.TraceID(failed.TraceParent) != foreignTrace || telemetry.TraceID(header) != foreignTrace {
					t.Fatalf("failed event traceparent %q (header %q): want the agent's trace %s", failed.TraceParent, header, foreignTrace)
				}
			case config.TraceContextLink:
				if telemetry.TraceID(failed.TraceParent) == foreignTrace || telemetry.TraceID(header) == foreignTrace {
					t.Fatalf("the failed event carries the agent's trace context: %q (header %q)", failed.TraceParent, header)
				}
			}
		})
	}
}
