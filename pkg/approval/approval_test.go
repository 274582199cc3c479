package approval_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/approval"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func publish(t *testing.T, js jetstream.JetStream, e events.Envelope) {
	t.Helper()
	raw, err := e.Encode(0)
	if err != nil {
		t.Fatal(err)
	}
	subj, _ := e.NATSSubject()
	m := nats.NewMsg(subj)
	m.Data = raw
	m.Header.Set(events.HeaderMsgID, e.ID)
	if _, err := js.PublishMsg(context.Background(), m); err != nil {
		t.Fatal(err)
	}
}

func decision(t *testing.T, call, by string) events.Envelope {
	t.Helper()
	e, err := events.NewKeyed("run1", events.KindApprovalDecided, 1, call, "test", time.Now(),
		events.ApprovalDecidedData{Call: call, Decision: events.DecisionApprove, By: by})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestParkAndDecisionsReadBackFromTheStream(t *testing.T) {
	_, _, js := natstest.StartJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := bus.Provision(ctx, js, bus.Topology{}, nil); err != nil {
		t.Fatal(err)
	}
	r, err := approval.NewReader(ctx, js, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.LastPark(ctx, "run1"); !errors.Is(err, approval.ErrNoPark) {
		t.Fatalf("LastPark of an unparked run: %v", err)
	}
	park, err := events.NewKeyed("run1", events.KindApprovalRequested, 1, "a1-s1-c1", "test", time.Now(), events.ApprovalRequestedData{
		Park: "a1-s1-c1", Calls: []events.ApprovalCall{{ID: "a1-s1-c1", Tool: "write_file"}, {ID: "a1-s1-c2", Tool: "write_file"}}})
	if err != nil {
		t.Fatal(err)
	}
	// A decision stored before the park (of an earlier park of another
	// attempt) does not count for it.
	early, _ := events.NewKeyed("run1", events.KindApprovalDecided, 2, "a1-s1-c2", "test", time.Now(),
		events.ApprovalDecidedData{Call: "a1-s1-c2", Decision: events.DecisionApprove, By: "early"})
	publish(t, js, early)
	publish(t, js, park)
	p, err := r.LastPark(ctx, "run1")
	if err != nil || p.Event.ID != park.ID || len(p.Data.Calls) != 2 {
		t.Fatalf("LastPark: %+v %v", p, err)
	}
	publish(t, js, decision(t, "a1-s1-c2", "alice"))
	publish(t, js, decision(t, "a1-s9-c9", "stranger")) // not a call of the park
	got, err := r.Decisions(ctx, p)
	if err != nil || len(got) != 1 || got["a1-s1-c2"].Data.By != "alice" || approval.Complete(p, got) {
		t.Fatalf("decisions after one: %+v %v", got, err)
	}
	c1 := decision(t, "a1-s1-c1", "bob")
	publish(t, js, c1)
	// A second decision on a decided call under the same id is dropped by
	// the stream; one under another attempt's id does not count.
	publish(t, js, decision(t, "a1-s1-c1", "dup"))
	second, _ := events.NewKeyed("run1", events.KindApprovalDecided, 2, "a1-s1-c1", "test", time.Now(),
		events.ApprovalDecidedData{Call: "a1-s1-c1", Decision: events.DecisionReject, By: "carol", Note: "n"})
	publish(t, js, second)
	got, err = r.Decisions(ctx, p)
	if err != nil || len(got) != 2 || got["a1-s1-c1"].Data.By != "bob" || !approval.Complete(p, got) {
		t.Fatalf("decisions after both: %+v %v", got, err)
	}
	if !approval.Completes(p, got, got["a1-s1-c1"].Seq) || approval.Completes(p, got, got["a1-s1-c2"].Seq) {
		t.Fatal("the last decision, and only it, completes the park")
	}
}
