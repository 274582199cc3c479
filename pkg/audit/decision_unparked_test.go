package audit_test

import (
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/rao"
)

// TestDecisionOnACallNeverParked: a decision on a call the run never
// parked changes nothing, and the run's timeline says so plainly: its
// event is a refusal naming the call and saying it changed nothing, not
// an override that reads as if the call was rejected. A decision on a
// parked call is still the park's decision.
func TestDecisionOnACallNeverParked(t *testing.T) {
	srv := startServer(t)
	rec := newRecorder(t, srv.store(t), 0, 0)
	const run = "unparked"
	req := runEvents(t, run, policy.Default())[0]
	record(t, rec, run, allSteps(t, []events.Envelope{req})[0])

	stray, err := events.NewKeyed(run, events.KindApprovalDecided, 1, "a1-s9-c9", "agent/x", t0,
		events.ApprovalDecidedData{Call: "a1-s9-c9", Decision: events.DecisionReject, By: "eve", Note: "no"})
	if err != nil {
		t.Fatal(err)
	}
	st, h := record(t, rec, run, allSteps(t, []events.Envelope{stray})[0])
	last := h[len(h)-1]
	if last.Kind == rao.KindOverride || !strings.Contains(last.Summary, "decision on call a1-s9-c9 (rejected by eve) refers to no call the run parked: it changed nothing") {
		t.Errorf("timeline event of a decision on a call never parked: %s %q", last.Kind, last.Summary)
	}
	if len(st.Refused) != 1 || st.Refused[0].Event != stray.ID || st.Refused[0].TS != t0.Format("2006-01-02T15:04:05Z") || len(st.Approvals) != 0 || len(st.Notes) != 0 {
		t.Errorf("state after a decision on a call never parked: refused %+v, approvals %+v, notes %+v", st.Refused, st.Approvals, st.Notes)
	}

	park, err := events.NewKeyed(run, events.KindApprovalRequested, 1, "a1-s9-c9", "codali/builder", t0, events.ApprovalRequestedData{
		Run: testRun("hello"), Park: "a1-s9-c9", Calls: []events.ApprovalCall{{ID: "a1-s9-c9", Step: 9, Tool: "write_file"}}, Deadline: t0.Add(24 * 3600e9)})
	if err != nil {
		t.Fatal(err)
	}
	record(t, rec, run, allSteps(t, []events.Envelope{park})[0])
	// The same decision, published again after the park: it decides it.
	again, err := events.NewKeyed(run, events.KindApprovalDecided, 1, "a1-s9-c9", "agent/x", t0.Add(1e9),
		events.ApprovalDecidedData{Call: "a1-s9-c9", Decision: events.DecisionReject, By: "eve", Note: "still no"})
	if err != nil {
		t.Fatal(err)
	}
	st, h = record(t, rec, run, allSteps(t, []events.Envelope{again})[0])
	if last := h[len(h)-1]; last.Kind != rao.KindOverride || last.Summary != "call a1-s9-c9 rejected by eve: still no" {
		t.Errorf("timeline event of a decision on a parked call: %s %q", last.Kind, last.Summary)
	}
	if len(st.Approvals) != 1 || st.Approvals[0].Decision == nil || st.Approvals[0].Decision.By != "eve" || len(st.Refused) != 1 {
		t.Errorf("state after the decision on the parked call: approvals %+v, refused %+v", st.Approvals, st.Refused)
	}
	if s := audit.SummaryOf(st, h); len(s.Pending) != 0 {
		t.Errorf("pending after the decision: %+v", s.Pending)
	}
}
