package builder_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/codali-dev/codali/services/builder"
)

// parking is a builder whose model writes go.mod, which its policy parks
// for approval, once per edit, then says it is done; and the plan event
// that starts a run of it on a copy of the hello repository.
type parking struct {
	t       *testing.T
	h       worker.Handler
	d       *app.Deps
	request events.Requested
	plan    events.Envelope
}

// newParking makes a parking builder for run whose model writes go.mod
// edits times (each edit a park).
func newParking(t *testing.T, run string, edits int) parking {
	t.Helper()
	var responses []string
	for i := range edits {
		responses = append(responses, `{"phase":"builder","step":`+strconv.Itoa(i+1)+`,"json":{"tool_calls":[{"tool":"write_file","args":{"path":"go.mod","content":"module example.com/hello\n\ngo 1.23\n// edit `+strconv.Itoa(i+1)+`\n"}}]}}`)
	}
	responses = append(responses, `{"phase":"builder","step":`+strconv.Itoa(edits+1)+`,"json":{"done":true,"summary":"done"}}`)
	script, err := llm.ParseScript([]byte(`{"responses":[` + strings.Join(responses, ",") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	pol := `{"never_touch":[".git/**"],"require_approval_for":{"paths":["go.mod"]}}`
	d := apptest.Deps(t, `{}`, apptest.Options{Script: script, PolicyJSON: pol})
	h, err := builder.New(apptest.Ctx(t), d)
	if err != nil {
		t.Fatal(err)
	}
	request := events.Requested{Request: "r", Repo: events.RepoRef{Path: apptest.CopyHello(t)}}
	plan := events.Plan{Summary: "p", Steps: []events.PlanStep{{ID: "s1", Description: "edit go.mod"}}, TargetFiles: []string{"go.mod"},
		Verify: []events.VerifyCommand{{Name: "t", Command: []string{"test", "-f", "go.mod"}}}}
	in, err := events.New(run, events.KindPlan, 1, "codali/architect", apptest.Now(), events.PlanData{
		Run:  events.Run{Request: request, Project: "hello", MaxRetries: 1},
		Plan: plan, Bundle: &events.ContextBundle{},
	})
	if err != nil {
		t.Fatal(err)
	}
	return parking{t: t, h: h, d: d, request: request, plan: in}
}

// requested stores the run's request in the work stream and claims the
// run with it, as the librarian's handling of it does.
func (p parking) requested(ctx context.Context) {
	t := p.t
	t.Helper()
	req, err := events.New(p.plan.RunID(), events.KindRequested, 1, "agent/ci", apptest.Now(), p.request)
	if err != nil {
		t.Fatal(err)
	}
	natstest.StoreEvent(t, ctx, p.d.JS, req, req.ID)
	if err := p.d.Claims.Admit(ctx, req); err != nil {
		t.Fatal(err)
	}
}

// handle hands e to the builder as the delivery of stream sequence seq.
func (p parking) handle(e events.Envelope, seq, deliveries uint64) ([]events.Envelope, error) {
	return p.handleIn(apptest.Ctx(p.t), e, seq, deliveries)
}

// handleIn is handle under ctx (which may carry an exchange collector, as
// the services' runtime gives every handling).
func (p parking) handleIn(ctx context.Context, e events.Envelope, seq, deliveries uint64) ([]events.Envelope, error) {
	return p.h(worker.ContextWithDelivery(ctx, worker.Delivery{StreamSeq: seq, Deliveries: deliveries}), e)
}

// parked fails the test unless outs is one approval_requested, and
// returns its data.
func (p parking) parked(outs []events.Envelope, err error) events.ApprovalRequestedData {
	t := p.t
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

// outputMsgID is the message id the runtime publishes the builder's output
// id under (worker.EventMsg with the service's key): a test storing an
// output "as the runtime did" uses it, so the builder's own publish of it
// is de-duplicated.
func outputMsgID(t *testing.T, d *app.Deps, id string) string {
	t.Helper()
	m, err := d.MsgIDs.For(id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
