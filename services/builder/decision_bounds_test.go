package builder_test

import (
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/codali-dev/codali/services/builder"
)

// TestHugeDecisionNoteKeepsTheBuiltEventBounded: a decision is published
// by any agent, with a note (and a name) as long as the event allows.
// The run goes on under the decision, and what it publishes next still
// fits in an event: the note is not copied whole into the built event.
func TestHugeDecisionNoteKeepsTheBuiltEventBounded(t *testing.T) {
	script, err := llm.ParseScript([]byte(`{"responses":[
	  {"phase":"builder","step":1,"json":{"tool_calls":[{"tool":"write_file","args":{"path":"go.mod","content":"module example.com/hello\n\ngo 1.23\n// one\n"}}]}},
	  {"phase":"builder","step":2,"json":{"done":true,"summary":"done"}}]}`))
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
	in, err := events.New("hugenote", events.KindPlan, 1, "codali/architect", apptest.Now(), events.PlanData{
		Run:  events.Run{Request: events.Requested{Request: "r", Repo: events.RepoRef{Path: repo}}, Project: "hello", MaxRetries: 1},
		Plan: plan, Bundle: &events.ContextBundle{},
	})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := h(worker.ContextWithDelivery(apptest.Ctx(t), worker.Delivery{StreamSeq: 1, Deliveries: 1}), in)
	if err != nil || len(outs) != 1 || outs[0].Type != events.KindApprovalRequested.Type() {
		t.Fatalf("want a park: %v %+v", err, outs)
	}
	var ad events.ApprovalRequestedData
	if err := events.DecodeData(outs[0], &ad); err != nil {
		t.Fatal(err)
	}
	call := ad.Calls[0].ID
	limit := d.Config.Events.MaxEventBytes
	note := strings.Repeat("no ", limit/3-1000)
	dec, err := events.NewKeyed("hugenote", events.KindApprovalDecided, 1, call, "agent/evil", apptest.Now(),
		events.ApprovalDecidedData{Call: call, Decision: events.DecisionReject, By: "evil", At: apptest.Now(), Note: note})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dec.Encode(limit); err != nil {
		t.Fatalf("the decision itself does not fit: %v", err)
	}
	outs, err = h(worker.ContextWithDelivery(apptest.Ctx(t), worker.Delivery{StreamSeq: 2, Deliveries: 1}), dec)
	if err != nil || len(outs) != 1 {
		t.Fatalf("resume: %v (%d events)", err, len(outs))
	}
	if _, err := outs[0].Encode(limit); err != nil {
		t.Fatalf("the %s event after a decision with a %d-byte note: %v", outs[0].Type, len(note), err)
	}
}
