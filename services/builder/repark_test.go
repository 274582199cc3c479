package builder_test

import (
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/codali-dev/codali/services/builder"
)

// TestRedeliveredDecisionRepublishesTheNextPark: the decision that
// resumes a run leads to a second park (the model asks for another call
// that needs approval); the builder stores the second park, but its
// approval_requested is not published (the publish failed, or the builder
// stopped before it). The decision is redelivered: the builder must hand
// the second park out again, or nobody learns of it and the run waits
// for its deadline.
func TestRedeliveredDecisionRepublishesTheNextPark(t *testing.T) {
	script, err := llm.ParseScript([]byte(`{"responses":[
	  {"phase":"builder","step":1,"json":{"tool_calls":[{"tool":"write_file","args":{"path":"go.mod","content":"module example.com/hello\n\ngo 1.23\n// one\n"}}]}},
	  {"phase":"builder","step":2,"json":{"tool_calls":[{"tool":"write_file","args":{"path":"go.mod","content":"module example.com/hello\n\ngo 1.23\n// two\n"}}]}},
	  {"phase":"builder","step":3,"json":{"done":true,"summary":"done"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	pol := `{"never_touch":[".git/**"],"require_approval_for":{"paths":["go.mod"]}}`
	d := apptest.Deps(t, `{}`, apptest.Options{Script: script, PolicyJSON: pol})
	h, err := builder.New(apptest.Ctx(t), d)
	if err != nil {
		t.Fatal(err)
	}
	repo := apptest.CopyHello(t)
	plan := events.Plan{Summary: "p", Steps: []events.PlanStep{{ID: "s1", Description: "edit go.mod"}}, TargetFiles: []string{"go.mod"},
		Verify: []events.VerifyCommand{{Name: "t", Command: []string{"test", "-f", "go.mod"}}}}
	in, err := events.New("repark", events.KindPlan, 1, "codali/architect", apptest.Now(), events.PlanData{
		Run:  events.Run{Request: events.Requested{Request: "r", Repo: events.RepoRef{Path: repo}}, Project: "hello", MaxRetries: 1},
		Plan: plan, Bundle: &events.ContextBundle{},
	})
	if err != nil {
		t.Fatal(err)
	}
	park := func(outs []events.Envelope, err error) events.ApprovalRequestedData {
		t.Helper()
		if err != nil || len(outs) != 1 || outs[0].Type != events.KindApprovalRequested.Type() {
			t.Fatalf("want one approval_requested, got %d events (err %v): %+v", len(outs), err, outs)
		}
		var ad events.ApprovalRequestedData
		if err := events.DecodeData(outs[0], &ad); err != nil {
			t.Fatal(err)
		}
		return ad
	}
	first := park(h(worker.ContextWithDelivery(apptest.Ctx(t), worker.Delivery{StreamSeq: 1, Deliveries: 1}), in))
	call := first.Calls[0].ID
	dec, err := events.NewKeyed("repark", events.KindApprovalDecided, 1, call, "agent/ci", apptest.Now(),
		events.ApprovalDecidedData{Call: call, Decision: events.DecisionApprove, By: "alice", At: apptest.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	deliver := func(n uint64) ([]events.Envelope, error) {
		return h(worker.ContextWithDelivery(apptest.Ctx(t), worker.Delivery{StreamSeq: 7, Deliveries: n}), dec)
	}
	second := park(deliver(1)) // the outputs are lost: never published
	if second.Park == first.Park {
		t.Fatalf("the resumed run parked on the same call %s", second.Park)
	}
	again := park(deliver(2))
	if again.Park != second.Park {
		t.Fatalf("the redelivered decision parked on %s, want the stored park %s", again.Park, second.Park)
	}
}
