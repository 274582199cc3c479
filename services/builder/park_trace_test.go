package builder_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/events"
)

// TestParkTraceContextIsThePlans: a park and its scheduled deadline
// carry the trace context of the plan event the attempt started from,
// also when a decision resumed the run into the park: an agent's
// decision never lends them its trace context (the deadline's handling
// follows what it carries, and under tracing.agentTraceContext "link"
// an agent's context must not be followed).
func TestParkTraceContextIsThePlans(t *testing.T) {
	const foreign = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	const plan = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	p := newParking(t, "parktrace", 2)
	p.plan.TraceParent = plan
	first := p.parked(p.handle(p.plan, 1, 1))
	dec, err := events.NewKeyed("parktrace", events.KindApprovalDecided, 1, first.Park, "agent/ci", apptest.Now(),
		events.ApprovalDecidedData{Call: first.Park, Decision: events.DecisionApprove, By: "alice", At: apptest.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	dec.TraceParent = foreign
	outs, err := p.handle(dec, 7, 1)
	second := p.parked(outs, err)
	if outs[0].TraceParent != plan {
		t.Errorf("the park carries %q, want the plan's %q", outs[0].TraceParent, plan)
	}
	s, err := p.d.JS.Stream(apptest.Ctx(t), events.StreamTimers)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GetLastMsgForSubject(apptest.Ctx(t), events.TimerScheduleSubject("parktrace", second.Park))
	if err != nil {
		t.Fatal(err)
	}
	var dl events.Envelope
	if err := json.Unmarshal(m.Data, &dl); err != nil {
		t.Fatal(err)
	}
	if dl.TraceParent != plan {
		t.Errorf("the deadline carries %q, want the plan's %q", dl.TraceParent, plan)
	}
}
