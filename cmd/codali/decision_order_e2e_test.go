package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go"
)

// TestConflictingDecisionsAgreeAcrossARestart: while the builder is down,
// an agent approves a parked call and another rejects it under another
// Nats-Msg-Id header, so both are stored; the other call is approved.
// When the builder comes back it receives the three decisions at once
// and handles them concurrently, in any order. The run acts on the
// first decision in the stream (the approve), and the history names the
// same one and keeps the reject as a late decision.
func TestConflictingDecisionsAgreeAcrossARestart(t *testing.T) {
	cfg := approvalConfig(t, 300000)
	data := t.TempDir()
	p, stop := startStoppable(t, upOptions{workers: "all", config: cfg, data: data})
	runID, pend := p.parked(t, "conflicting decisions")
	stop()
	p, stop = startStoppable(t, upOptions{workers: "librarian,architect,critic,recorder", config: cfg, data: data})
	_, js := p.js(t)
	publish := func(call pendingApproval, msgID string, d events.ApprovalDecidedData) {
		t.Helper()
		d.Call, d.At = call.Call, time.Now().UTC()
		e, err := events.NewKeyed(runID, events.KindApprovalDecided, call.Attempt, call.Call, "agent/"+d.By, time.Now(), d)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := e.Encode(0)
		if err != nil {
			t.Fatal(err)
		}
		m := nats.NewMsg(events.KindApprovalDecided.Subject(runID))
		m.Data = raw
		m.Header.Set(events.HeaderMsgID, strings.ReplaceAll(msgID, "<id>", e.ID))
		if ack, err := js.PublishMsg(context.Background(), m); err != nil || ack.Duplicate {
			t.Fatalf("publish %s: %v %+v", msgID, err, ack)
		}
	}
	gomod := pend[0]
	if !strings.Contains(strings.Join(gomod.Targets, " "), "go.mod") {
		gomod, pend[1] = pend[1], pend[0]
	}
	publish(gomod, "<id>", events.ApprovalDecidedData{Decision: events.DecisionApprove, By: "alice"})
	publish(gomod, "<id>-mallory", events.ApprovalDecidedData{Decision: events.DecisionReject, By: "mallory", Note: "no"})
	publish(pend[1], "<id>", events.ApprovalDecidedData{Decision: events.DecisionApprove, By: "bob"})
	eventually(t, "the history to record the three decisions", func() bool {
		out := p.must(t, "rao", "replay", runID, "--json")
		return strings.Contains(out, "approved by alice") && strings.Contains(out, "rejected by mallory") && strings.Contains(out, "approved by bob")
	})
	stop()
	p, stop = startStoppable(t, upOptions{workers: "all", config: cfg, data: data})
	defer stop()
	verdict := p.verdicts(t)
	env, v := verdict(runID)
	if k, _ := env.Kind(); k != events.KindPassed || v.Change == nil || !strings.Contains(v.Change.Diff, "+// approved") {
		t.Fatalf("the run did not act on alice's approve (the first decision stored): %s %+v", env.Type, v.Change)
	}
	replay := p.must(t, "rao", "replay", runID, "--json")
	if !strings.Contains(replay, "late decision on call "+gomod.Call+" (rejected): the first one stands") {
		t.Fatalf("the history does not keep mallory's reject as a late decision:\n%s", p.must(t, "rao", "replay", runID))
	}
}
