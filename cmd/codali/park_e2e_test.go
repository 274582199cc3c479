package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
)

// TestParkedRunsHoldNoConsumer lowers the builder consumer's max ack
// pending to 2 and parks three runs: parked runs are acknowledged, so
// they do not count against it, the third run still reaches the builder
// and parks, and once approved it passes while the others still wait.
func TestParkedRunsHoldNoConsumer(t *testing.T) {
	p := startUp(t, approvalConfig(t, 300000))
	verdict := p.verdicts(t)
	_, js := p.js(t)
	ctx := context.Background()
	cfg := bus.Topology{Replicas: 1, MaxAckPending: 2}.ConsumerConfig(events.ServiceBuilder)
	if _, err := js.UpdateConsumer(ctx, events.StreamWork, cfg); err != nil {
		t.Fatal(err)
	}
	var runs []string
	var third []pendingApproval
	for i := range 3 {
		run, pend := p.parked(t, "park "+string(rune('a'+i)))
		runs, third = append(runs, run), pend
	}
	cons, err := js.Consumer(ctx, events.StreamWork, events.ServiceBuilder)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the builder to hold no parked run", func() bool {
		info, err := cons.Info(ctx)
		return err == nil && info.Config.MaxAckPending == 2 && info.NumAckPending == 0
	})
	for _, a := range third {
		p.must(t, "approve", runs[2], a.Call, "--by", "frank")
	}
	if env, _ := verdict(runs[2]); env.Type != events.KindPassed.Type() {
		t.Fatalf("the third parked run: %s", env.Type)
	}
	for _, run := range runs[:2] {
		if got := p.pendingOf(t, run); len(got) != 2 {
			t.Errorf("run %s no longer waits: %+v", run, got)
		}
	}
}

// TestApprovalTimeoutAfterARestart parks a run, stops the server and every
// worker until its deadline has passed, and starts them again: the
// deadline, stored as a message schedule, still fires, once, and fails the
// run with approval_timeout; a decision sent after it changes nothing.
func TestApprovalTimeoutAfterARestart(t *testing.T) {
	cfg := approvalConfig(t, 3000)
	data := t.TempDir()
	p, stop := startStoppable(t, upOptions{workers: "all", config: cfg, data: data})
	runID, pend := p.parked(t, "time out across a restart")
	deadline, err := time.Parse(time.RFC3339, pend[0].Deadline)
	if err != nil {
		t.Fatalf("deadline %q: %v", pend[0].Deadline, err)
	}
	stop()
	eventually(t, "the deadline to pass while everything is down", func() bool { return time.Now().After(deadline.Add(time.Second)) })
	p, stop = startStoppable(t, upOptions{workers: "all", config: cfg, data: data})
	defer stop()
	timedOut := func() bool {
		code, out, _ := p.run(t, "runs", "--json")
		return code == exitOK && strings.Contains(out, runID) && strings.Contains(out, events.CodeApprovalTimeout)
	}
	eventually(t, "the run to fail with approval_timeout", timedOut)
	// Too late: the CLI refuses; an agent's decision over NATS is recorded,
	// but the run stays failed.
	if code, _, _ := p.run(t, "approve", runID, pend[0].Call, "--by", "late"); code != exitFailure {
		t.Fatalf("approving a timed-out call: exit %d", code)
	}
	late, err := events.NewKeyed(runID, events.KindApprovalDecided, pend[0].Attempt, pend[0].Call, "agent/late", time.Now(),
		events.ApprovalDecidedData{Call: pend[0].Call, Decision: events.DecisionApprove, By: "late", At: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := late.Encode(0)
	if err != nil {
		t.Fatal(err)
	}
	_, js := p.js(t)
	if _, err := js.Publish(context.Background(), events.KindApprovalDecided.Subject(runID), raw); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the history to record the late decision", func() bool {
		return strings.Contains(p.must(t, "rao", "replay", runID, "--json"), "approved by late")
	})
	failed, deadlines := 0, 0
	for _, ev := range p.replayEvents(t, runID) {
		switch {
		case strings.Contains(ev.Summary, "approval deadline of park"):
			deadlines++
		case strings.HasPrefix(ev.Summary, "builder failed") || strings.Contains(ev.Summary, "approval_timeout"):
			failed++
		}
	}
	if deadlines != 1 || failed != 1 {
		t.Errorf("history: %d deadlines and %d timeout failures, want 1 and 1", deadlines, failed)
	}
	if !timedOut() {
		t.Error("the run's verdict changed after the late decision")
	}
	if t.Failed() {
		t.Log(p.must(t, "rao", "replay", runID))
	}
}
