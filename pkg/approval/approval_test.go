package approval_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/approval"
	"github.com/codali-dev/codali/pkg/events"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func openStore(t *testing.T) (context.Context, *approval.Store) {
	t.Helper()
	ctx, js := workStream(t)
	return ctx, openWith(t, ctx, js)
}

func park(t *testing.T, run string, attempt int, calls ...string) events.Envelope {
	t.Helper()
	d := events.ApprovalRequestedData{Park: calls[0], Deadline: t0.Add(time.Hour)}
	for _, c := range calls {
		d.Calls = append(d.Calls, events.ApprovalCall{ID: c, Tool: "write_file"})
	}
	e, err := events.NewKeyed(run, events.KindApprovalRequested, attempt, calls[0], "codali/builder", t0, d)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func decision(t *testing.T, run string, attempt int, call, by string) events.Envelope {
	t.Helper()
	e, err := events.NewKeyed(run, events.KindApprovalDecided, attempt, call, "test", t0,
		events.ApprovalDecidedData{Call: call, Decision: events.DecisionApprove, By: by})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func deadline(t *testing.T, p events.Envelope) events.Envelope {
	t.Helper()
	key := events.KeyOf(p)
	e, err := events.NewKeyed(p.RunID(), events.KindApprovalDeadline, p.Attempt, key, "codali/builder", t0.Add(time.Hour),
		events.ApprovalDeadlineData{Park: key, Request: p.ID, Deadline: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestDecisionsSettleTheParkOnce(t *testing.T) {
	ctx, s := openStore(t)
	p := park(t, "run1", 1, "a1-s1-c1", "a1-s1-c3")
	if err := s.Park(ctx, p, 0); err != nil {
		t.Fatal(err)
	}
	// seq numbers the messages carrying the events, as the work stream
	// does: a redelivery has its message's sequence, a new message a new one.
	seq := uint64(0)
	decideAt := func(e events.Envelope, at uint64) approval.Result {
		t.Helper()
		r, err := s.Decide(ctx, e, at)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	decide := func(e events.Envelope) approval.Result {
		t.Helper()
		seq++
		return decideAt(e, seq)
	}
	first, second := decision(t, "run1", 1, "a1-s1-c1", "alice"), decision(t, "run1", 1, "a1-s1-c3", "bob")
	if r := decide(first); r.Settled || r.Park.Event.ID != p.ID || len(r.Decided) != 1 {
		t.Fatalf("first decision: %+v", r)
	}
	// A redelivered park keeps the decisions taken since.
	if err := s.Park(ctx, p, 0); err != nil {
		t.Fatal(err)
	}
	// Ignored: another attempt, a call not parked, a key that is not the
	// call, a second decision on a decided call, a malformed one.
	for name, e := range map[string]events.Envelope{
		"another attempt": decision(t, "run1", 2, "a1-s1-c3", "eve"),
		"unknown call":    decision(t, "run1", 1, "a9-s9-c9", "eve"),
		"another run":     decision(t, "run2", 1, "a1-s1-c3", "eve"),
	} {
		if r := decide(e); r.Settled || r.Park.Event.ID != "" {
			t.Errorf("%s: %+v", name, r)
		}
	}
	wrongKey := decision(t, "run1", 1, "a1-s1-c3", "eve")
	wrongKey.ID = events.KeyedMsgID("run1", events.KindApprovalDecided, 1, "a1-s1-c1")
	if r := decide(wrongKey); r.Settled || len(r.Decided) != 0 {
		t.Errorf("key of another call: %+v", r)
	}
	malformed := decision(t, "run1", 1, "a1-s1-c3", "")
	if r := decide(malformed); r.Settled || r.Park.Event.ID != "" {
		t.Errorf("malformed: %+v", r)
	}
	if r := decide(decision(t, "run1", 1, "a1-s1-c1", "mallory")); r.Settled || r.Decided["a1-s1-c1"].Data.By != "alice" {
		t.Errorf("a second decision on a call replaced the first: %+v", r)
	}
	// The last open call settles the park, and only its decision does,
	// also when redelivered.
	if r := decide(second); !r.Settled || len(r.Decided) != 2 {
		t.Fatalf("completing decision: %+v", r)
	}
	settling := seq
	if r := decideAt(second, settling); !r.Settled {
		t.Errorf("the redelivered completing decision must resume again: %+v", r)
	}
	if r := decide(first); r.Settled {
		t.Errorf("a redelivered earlier decision resumed: %+v", r)
	}
	// Another message with the completing decision's id (its id is the
	// call's: a second decision on the call, the same one published
	// again) is not the one that settled the park: the run resumed once.
	if r := decide(second); r.Settled {
		t.Errorf("the completing decision published again resumed the run again: %+v", r)
	}
	if r := decide(decision(t, "run1", 1, "a1-s1-c3", "mallory")); r.Settled || r.Decided["a1-s1-c3"].Data.By != "bob" {
		t.Errorf("a second decision on the completing call resumed the run again: %+v", r)
	}
	if r := decideAt(second, 0); r.Settled {
		t.Errorf("a message of unknown sequence resumed the run again: %+v", r)
	}
	// The deadline of a settled park changes nothing.
	if r, err := s.Expire(ctx, deadline(t, p), 100); err != nil || r.Settled {
		t.Errorf("deadline after the resume: %+v %v", r, err)
	}
	// A new park replaces the record; the old park's deadline is ignored.
	p2 := park(t, "run1", 1, "a1-s4-c1")
	if err := s.Park(ctx, p2, 0); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Expire(ctx, deadline(t, p), 101); err != nil || r.Settled || r.Park.Event.ID != "" {
		t.Errorf("an older park's deadline: %+v %v", r, err)
	}
	dl := deadline(t, p2)
	if r, err := s.Expire(ctx, dl, 102); err != nil || !r.Settled || len(r.Decided) != 0 {
		t.Fatalf("deadline of an undecided park: %+v %v", r, err)
	}
	if r, err := s.Expire(ctx, dl, 102); err != nil || !r.Settled {
		t.Errorf("a redelivered deadline must fail the run again: %+v %v", r, err)
	}
	if r, err := s.Expire(ctx, dl, 103); err != nil || r.Settled {
		t.Errorf("the deadline in another message failed the run again: %+v %v", r, err)
	}
	if r := decide(decision(t, "run1", 1, "a1-s4-c1", "late")); r.Settled {
		t.Errorf("a decision after the timeout resumed: %+v", r)
	}
	bad := dl
	bad.Data = []byte(`{"park":""}`)
	if _, err := s.Expire(ctx, bad, 104); !errors.Is(err, approval.ErrInvalid) {
		t.Errorf("malformed deadline: %v", err)
	}
}

// A park's last decision and its deadline, handled at the same time by
// different builders: exactly one of them settles the park, every time.
func TestDecisionRacingTheDeadlineSettlesOnce(t *testing.T) {
	ctx, s := openStore(t)
	for i := range 40 {
		run := fmt.Sprintf("race%d", i)
		p := park(t, run, 1, "a1-s1-c1")
		if err := s.Park(ctx, p, 0); err != nil {
			t.Fatal(err)
		}
		dec, dl := decision(t, run, 1, "a1-s1-c1", "alice"), deadline(t, p)
		var wg sync.WaitGroup
		var resumed, expired approval.Result
		var errs [2]error
		wg.Add(2)
		go func() { defer wg.Done(); resumed, errs[0] = s.Decide(ctx, dec, 1) }()
		go func() { defer wg.Done(); expired, errs[1] = s.Expire(ctx, dl, 2) }()
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatal(errs)
		}
		if resumed.Settled == expired.Settled {
			t.Fatalf("run %s: resumed %v, timed out %v: want exactly one", run, resumed.Settled, expired.Settled)
		}
	}
}

// TestRedeliveredResumeHandsOutTheNextPark: the decision (message 7) that
// settled the first park resumed the run into a second park; only that
// message, redelivered while the second park waits, asks for the second
// park to be published again.
func TestRedeliveredResumeHandsOutTheNextPark(t *testing.T) {
	ctx, s := openStore(t)
	if err := s.Park(ctx, park(t, "run3", 1, "a1-s1-c1"), 3); err != nil {
		t.Fatal(err)
	}
	first := decision(t, "run3", 1, "a1-s1-c1", "alice")
	if res, err := s.Decide(ctx, first, 7); err != nil || !res.Settled || res.Republish {
		t.Fatalf("first decision: %+v, %v", res, err)
	}
	next := park(t, "run3", 1, "a1-s2-c1")
	if err := s.Park(ctx, next, 7); err != nil {
		t.Fatal(err)
	}
	res, err := s.Decide(ctx, first, 7)
	if err != nil || !res.Republish || res.Settled || res.Park.Event.ID != next.ID {
		t.Fatalf("redelivered resuming decision: %+v, %v; want the second park to publish again", res, err)
	}
	if res, err := s.Decide(ctx, first, 8); err != nil || res.Republish || res.Park.Event.ID != "" {
		t.Fatalf("the same decision published again: %+v, %v; want nothing", res, err)
	}
	if res, err := s.Decide(ctx, decision(t, "run3", 1, "a1-s2-c1", "bob"), 9); err != nil || !res.Settled {
		t.Fatalf("decision on the second park: %+v, %v", res, err)
	}
	if res, err := s.Decide(ctx, first, 7); err != nil || res.Republish || res.Settled {
		t.Fatalf("redelivery after the second park settled: %+v, %v; want nothing", res, err)
	}
}

// TestAStaleParkDoesNotReplaceALaterOne: the plan of an attempt is
// redelivered (its handling published the first park, but its
// acknowledgement was lost) after the first park was decided and the run
// parked again further on. The redelivered handling parks on the first
// call again: the later park stays the run's current one, its decisions
// and its deadline still count.
func TestAStaleParkDoesNotReplaceALaterOne(t *testing.T) {
	ctx, s := openStore(t)
	first := park(t, "run4", 1, "a1-s1-c1")
	if err := s.Park(ctx, first, 3); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Decide(ctx, decision(t, "run4", 1, "a1-s1-c1", "alice"), 5); err != nil || !res.Settled {
		t.Fatalf("first decision: %+v, %v", res, err)
	}
	later := park(t, "run4", 1, "a1-s3-c1")
	if err := s.Park(ctx, later, 5); err != nil {
		t.Fatal(err)
	}
	if err := s.Park(ctx, first, 3); err != nil { // the redelivered plan
		t.Fatal(err)
	}
	res, err := s.Decide(ctx, decision(t, "run4", 1, "a1-s3-c1", "bob"), 9)
	if err != nil || !res.Settled || res.Park.Event.ID != later.ID {
		t.Fatalf("decision on the later park after a stale one: %+v, %v", res, err)
	}
	// At one step, the budget park (before the step's model call) comes
	// before the park of the step's tool calls.
	budget := park(t, "run4", 1, "a1-s4-budget")
	if err := s.Park(ctx, budget, 10); err != nil {
		t.Fatal(err)
	}
	tools := park(t, "run4", 1, "a1-s4-c1")
	if err := s.Park(ctx, tools, 10); err != nil {
		t.Fatal(err)
	}
	if err := s.Park(ctx, budget, 10); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Decide(ctx, decision(t, "run4", 1, "a1-s4-c1", "bob"), 13); err != nil || !res.Settled || res.Park.Event.ID != tools.ID {
		t.Fatalf("decision on the step's tool park after its budget park: %+v, %v", res, err)
	}
	// A park of a later attempt still replaces an earlier attempt's.
	next := park(t, "run4", 2, "a2-s1-c1")
	if err := s.Park(ctx, next, 11); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Decide(ctx, decision(t, "run4", 2, "a2-s1-c1", "bob"), 12); err != nil || !res.Settled {
		t.Fatalf("decision on the next attempt's park: %+v, %v", res, err)
	}
}
