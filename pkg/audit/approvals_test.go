package audit_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/rao"
)

func keyed(t *testing.T, kind events.Kind, key, source string, data any) events.Envelope {
	t.Helper()
	e, err := events.NewKeyed("r", kind, 1, key, source, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), data)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func applyTo(t *testing.T, st *audit.State, e events.Envelope) []audit.Step {
	t.Helper()
	steps, err := audit.Fold(e)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		s.Mutate(st)
	}
	return steps
}

func TestFoldApprovalRequestAndDecisions(t *testing.T) {
	st := audit.NewState("r")
	park := events.ApprovalRequestedData{Park: "a1-s1-c1", Deadline: time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC), Calls: []events.ApprovalCall{
		{ID: "a1-s1-c1", Step: 1, Tool: "write_file", Args: json.RawMessage(`{"path":"go.mod"}`), Targets: []string{"go.mod"}, Warnings: []string{"requires approval: write to go.mod"}},
		{ID: "a1-s1-c3", Step: 1, Tool: "write_file", Args: json.RawMessage(`{"path":"go.sum"}`), Targets: []string{"go.sum"}, Warnings: []string{"requires approval: write to go.sum"}},
	}}
	steps := applyTo(t, &st, keyed(t, events.KindApprovalRequested, "a1-s1-c1", "codali/builder", park))
	if len(steps) != 2 || steps[0].Kind != rao.KindAudit || steps[0].Cause == steps[1].Cause {
		t.Fatalf("request steps: %+v", steps)
	}
	if p := st.Pending(); len(p) != 2 || p[0].Deadline != "2026-01-03T00:00:00Z" {
		t.Fatalf("pending after the request: %+v", p)
	}
	if s := audit.SummaryOf(st, nil); s.Waiting != "approval" || len(s.Pending) != 2 {
		t.Fatalf("summary: %+v", s)
	}
	// A decision with another attempt than the park's decides nothing
	// (the builder ignores it too): a note, and the call stays pending.
	other, err := events.NewKeyed("r", events.KindApprovalDecided, 2, "a1-s1-c1", "agent/x", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		events.ApprovalDecidedData{Call: "a1-s1-c1", Decision: events.DecisionApprove, By: "eve"})
	if err != nil {
		t.Fatal(err)
	}
	if steps := applyTo(t, &st, other); steps[0].Summary != "call a1-s1-c1 approved by eve with attempt 2, not the call's 1: it decides nothing" {
		t.Errorf("summary of a decision of another attempt: %q", steps[0].Summary)
	}
	if p := st.Pending(); len(p) != 2 || len(st.Notes) != 1 || !strings.Contains(st.Notes[0].Text, "carries attempt 2, but the call was parked in attempt 1") {
		t.Fatalf("decision of another attempt: pending %+v, notes %+v", p, st.Notes)
	}
	st.Notes = nil
	edited := json.RawMessage(`{"path":"go.mod","content":"x"}`)
	steps = applyTo(t, &st, keyed(t, events.KindApprovalDecided, "a1-s1-c1", "codali/cli",
		events.ApprovalDecidedData{Call: "a1-s1-c1", Decision: events.DecisionApprove, By: "alice", EditedArgs: edited}))
	if len(steps) != 1 || steps[0].Kind != rao.KindOverride || !strings.Contains(steps[0].Summary, "approved with edited arguments by alice") {
		t.Fatalf("decision step: %+v", steps)
	}
	if p := st.Pending(); len(p) != 1 || p[0].Call != "a1-s1-c3" {
		t.Fatalf("pending after one decision: %+v", p)
	}
	d := st.Approvals[0].Decision
	if d == nil || d.By != "alice" || string(d.EditedArgs) != string(edited) || d.Event != "r.approval_decided.1.a1-s1-c1" {
		t.Fatalf("recorded decision: %+v", d)
	}
	// A second decision on the same call is a note: the first stands.
	applyTo(t, &st, keyed(t, events.KindApprovalDecided, "a1-s1-c1", "codali/cli",
		events.ApprovalDecidedData{Call: "a1-s1-c1", Decision: events.DecisionReject, By: "mallory", Note: "no"}))
	if st.Approvals[0].Decision.By != "alice" || len(st.Notes) != 1 || !strings.Contains(st.Notes[0].Text, "first one stands") {
		t.Fatalf("late decision: %+v %+v", st.Approvals[0].Decision, st.Notes)
	}
	// A decision whose data names another call than its id is refused.
	before := st.Approvals[1]
	steps = applyTo(t, &st, keyed(t, events.KindApprovalDecided, "a1-s1-c3", "codali/cli",
		events.ApprovalDecidedData{Call: "a1-s1-c1", Decision: events.DecisionApprove, By: "x"}))
	if len(steps) != 1 || !strings.HasPrefix(steps[0].Summary, "refused r.approval_decided.1.a1-s1-c3 from codali/cli: malformed decision, it decides nothing") ||
		st.Approvals[1].Decision != before.Decision || len(st.Refused) != 1 {
		t.Fatalf("a decision keyed by another call: steps %+v, approval %+v, refused %+v", steps, st.Approvals[1], st.Refused)
	}
	// Once the run ended nothing is pending.
	st.Status = audit.StatusCancelled
	if p := st.Pending(); p != nil {
		t.Fatalf("pending after the end: %+v", p)
	}
}

func TestFoldApprovalDeadline(t *testing.T) {
	st := audit.NewState("r")
	dl := time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)
	steps := applyTo(t, &st, keyed(t, events.KindApprovalDeadline, "a1-s1-c1", "codali/builder",
		events.ApprovalDeadlineData{Park: "a1-s1-c1", Request: "r.approval_requested.1.a1-s1-c1", Deadline: dl}))
	if len(steps) != 1 || !strings.Contains(steps[0].Summary, "approval deadline of park a1-s1-c1") {
		t.Fatalf("steps: %+v", steps)
	}
	if _, err := audit.Fold(keyed(t, events.KindApprovalDeadline, "a1-s1-c1", "codali/builder", events.ApprovalDeadlineData{Park: "a1-s1-c1"})); err == nil {
		t.Error("a deadline naming no park request folded")
	}
}

// The model calls of the handling that parked the run are referenced from
// its approval_requested event: the history keeps them with the attempt,
// once, so a parked run's recorded exchanges are complete.
func TestFoldApprovalRequestKeepsItsModelCalls(t *testing.T) {
	st := audit.NewState("r")
	ref := events.ExchangeRef{Hash: strings.Repeat("a", 64), Step: 1, Ref: events.ArtifactRef{Bucket: events.BucketArtifacts, Name: "exchanges/x", Size: 1, SHA256: "x"}}
	park := events.ApprovalRequestedData{Park: "a1-s1-c1", Deadline: time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC), Calls: []events.ApprovalCall{
		{ID: "a1-s1-c1", Step: 1, Tool: "write_file"}, {ID: "a1-s1-c2", Step: 1, Tool: "write_file"},
	}}
	e := keyed(t, events.KindApprovalRequested, "a1-s1-c1", "codali/builder", park)
	e, err := events.WithExchanges(e, []events.ExchangeRef{ref})
	if err != nil {
		t.Fatal(err)
	}
	applyTo(t, &st, e)
	if len(st.Attempts) != 1 || len(st.Attempts[0].ModelCalls) != 1 || st.Attempts[0].ModelCalls[0].Hash != ref.Hash ||
		st.Attempts[0].ModelCalls[0].Phase != events.ServiceBuilder {
		t.Fatalf("model calls after a park: %+v", st.Attempts)
	}
}

// An extension on the approval of a tool call (not a budget park's call)
// raises no budget: the builder runs the call as approved, and the
// history says so rather than "budget extended".
func TestExtensionOnAToolCallIsAnApproval(t *testing.T) {
	ext := &events.Budget{Tokens: 1000}
	steps, err := audit.Fold(keyed(t, events.KindApprovalDecided, "a1-s1-c1", "agent/x",
		events.ApprovalDecidedData{Call: "a1-s1-c1", Decision: events.DecisionApprove, By: "mallory", Extend: ext}))
	if err != nil || len(steps) != 1 || !strings.Contains(steps[0].Summary, "approved by mallory") || strings.Contains(steps[0].Summary, "budget") {
		t.Fatalf("tool call approved with an extension: %+v %v", steps, err)
	}
	steps, err = audit.Fold(keyed(t, events.KindApprovalDecided, "a1-s2-budget", "agent/x",
		events.ApprovalDecidedData{Call: "a1-s2-budget", Decision: events.DecisionApprove, By: "alice", Extend: ext}))
	if err != nil || len(steps) != 1 || !strings.Contains(steps[0].Summary, "budget extended (+1000 tokens") {
		t.Fatalf("budget extension: %+v %v", steps, err)
	}
}

// TestFoldRefusesMalformedDecisions: any agent may publish a decision on
// any run; one whose data is invalid (a reject without a note, no
// decider, an unknown decision, data naming another call than its id,
// data that does not decode) folds into a refusal that decides nothing:
// the history keeps it, the call stays pending, and the refusal belongs
// to the run whatever its data says (its check passes).
func TestFoldRefusesMalformedDecisions(t *testing.T) {
	park := keyed(t, events.KindApprovalRequested, "a1-s1-c1", "codali/builder", events.ApprovalRequestedData{Park: "a1-s1-c1",
		Deadline: time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC), Calls: []events.ApprovalCall{{ID: "a1-s1-c1", Step: 1, Tool: "write_file"}}})
	undecodable := keyed(t, events.KindApprovalDecided, "a1-s1-c1", "agent/evil", events.ApprovalDecidedData{Call: "a1-s1-c1", Decision: events.DecisionApprove, By: "x"})
	undecodable.Data = json.RawMessage(`{"call":7}`)
	for name, e := range map[string]events.Envelope{
		"reject without a note": keyed(t, events.KindApprovalDecided, "a1-s1-c1", "agent/evil", events.ApprovalDecidedData{Call: "a1-s1-c1", Decision: events.DecisionReject, By: "x"}),
		"no decider":            keyed(t, events.KindApprovalDecided, "a1-s1-c1", "agent/evil", events.ApprovalDecidedData{Call: "a1-s1-c1", Decision: events.DecisionApprove}),
		"unknown decision":      keyed(t, events.KindApprovalDecided, "a1-s1-c1", "agent/evil", events.ApprovalDecidedData{Call: "a1-s1-c1", Decision: "maybe", By: "x"}),
		"another call":          keyed(t, events.KindApprovalDecided, "a1-s1-c1", "agent/evil", events.ApprovalDecidedData{Call: "a1-s1-c2", Decision: events.DecisionApprove, By: "x"}),
		"undecodable":           undecodable,
	} {
		t.Run(name, func(t *testing.T) {
			st := audit.NewState("r")
			applyTo(t, &st, park)
			steps := applyTo(t, &st, e)
			if len(steps) != 1 || steps[0].Kind != rao.KindRun || steps[0].Check == nil || steps[0].Check(&st) != nil ||
				!strings.HasPrefix(steps[0].Summary, "refused "+e.ID+" from agent/evil: malformed decision, it decides nothing") {
				t.Fatalf("steps %+v", steps)
			}
			if p := st.Pending(); len(p) != 1 || len(st.Refused) != 1 || st.Refused[0].Event != e.ID {
				t.Fatalf("pending %+v, refused %+v", p, st.Refused)
			}
		})
	}
}

// TestDecisionWithoutAtTakesThePublishTime: an agent's decision without
// `at` is recorded at the time it was published (its envelope's), both
// as a park's decision and as the refusal of a decision on a call that
// was never parked, not at year 1.
func TestDecisionWithoutAtTakesThePublishTime(t *testing.T) {
	const published = "2026-01-02T03:04:05Z" // keyed's envelope time
	st := audit.NewState("r")
	stray, err := audit.Fold(keyed(t, events.KindApprovalDecided, "a1-s9-c9", "agent/x",
		events.ApprovalDecidedData{Call: "a1-s9-c9", Decision: events.DecisionReject, By: "eve", Note: "no"}))
	if err != nil {
		t.Fatal(err)
	}
	reason := stray[0].Check(&st)
	if reason == nil {
		t.Fatal("a decision on a call never parked passes its check")
	}
	stray[0].Refuse(reason).Mutate(&st)
	if len(st.Refused) != 1 || !strings.Contains(st.Refused[0].Reason, "refers to no call the run parked") || st.Refused[0].TS != published {
		t.Fatalf("refusal of a decision on a call never parked: %+v, want one at %s", st.Refused, published)
	}
	applyTo(t, &st, keyed(t, events.KindApprovalRequested, "a1-s1-c1", "codali/builder", events.ApprovalRequestedData{
		Park: "a1-s1-c1", Calls: []events.ApprovalCall{{ID: "a1-s1-c1", Step: 1, Tool: "write_file"}},
		Deadline: time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)}))
	applyTo(t, &st, keyed(t, events.KindApprovalDecided, "a1-s1-c1", "agent/x",
		events.ApprovalDecidedData{Call: "a1-s1-c1", Decision: events.DecisionApprove, By: "alice"}))
	if len(st.Approvals) != 1 || st.Approvals[0].Decision == nil || st.Approvals[0].Decision.At != published {
		t.Fatalf("approvals: %+v, want the decision at %s", st.Approvals, published)
	}
}
