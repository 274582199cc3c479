package main

import (
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
)

// TestSummaryLinesAlignOnTheWidestStatus: a waiting run's longer status
// ("waiting for approval", "waiting: budget_exhausted") does not push its
// other columns out of line with the other runs'.
func TestSummaryLinesAlignOnTheWidestStatus(t *testing.T) {
	list := []audit.Summary{
		{RunID: "01m88jed070tjjn073s5xp71vv", Status: audit.StatusRunning, Waiting: "budget_exhausted", Attempt: 1, Phase: "builder"},
		{RunID: "01m88jdsf5zm0hs63p2xxfp0nk", Status: audit.StatusRunning, Waiting: "approval", Attempt: 2, Phase: "builder"},
		{RunID: "01m88jbjhk37yyav680jtdx06n", Status: "passed", Attempt: 3, Phase: "critic"},
	}
	width := 0
	for _, s := range list {
		width = max(width, len(statusOf(s)))
	}
	if width != len("waiting: budget_exhausted") {
		t.Fatalf("widest status %d", width)
	}
	col := 26 + 2 + width + 2 // where the ATTEMPT column starts
	for i, s := range list {
		line := summaryLine(s, width)
		if len(line) <= col+1 || line[col] != byte('1'+i) || line[col+1] != ' ' || line[col-1] != ' ' {
			t.Fatalf("line %d %q: attempt %d not at column %d", i, line, i+1, col)
		}
	}
}

// TestWaitingOnNamesTheStatusRunsShows: approve's refusal of a call a run
// does not wait on says "waiting for approval" as `runs` does, not
// "running", with the calls it waits on.
func TestWaitingOnNamesTheStatusRunsShows(t *testing.T) {
	parked := audit.Summary{Status: audit.StatusRunning, Waiting: "approval", Pending: []audit.Approval{{Call: "a1-s2-c1"}, {Call: "a1-s2-c2"}}}
	if got, want := waitingOn(parked), "run waiting for approval; calls waiting: a1-s2-c1, a1-s2-c2"; got != want {
		t.Errorf("parked: %q, want %q", got, want)
	}
	if got, want := waitingOn(audit.Summary{Status: "passed"}), "run passed; calls waiting: -"; got != want {
		t.Errorf("ended: %q, want %q", got, want)
	}
}

// TestDescribeApprovalSaysWhatTheRunWaitsFor: a run parked on tool calls
// waits "for approval" (it read "waiting (-)"), one parked on its budget
// names the reason, and each says how to decide it.
func TestDescribeApprovalSaysWhatTheRunWaitsFor(t *testing.T) {
	deadline := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		data events.ApprovalRequestedData
		want string
	}{
		{events.ApprovalRequestedData{Park: "a1-s2", Deadline: deadline, Calls: []events.ApprovalCall{{ID: "a1-s2-c1", Tool: "run_command", Targets: []string{"make deploy"}}}},
			"waiting for approval until 2026-11-25T12:00:00Z: a1-s2-c1 run_command make deploy — codali approve|reject run-w CALL"},
		{events.ApprovalRequestedData{Park: "a1-s3", Deadline: deadline, Reason: "budget_exhausted", Calls: []events.ApprovalCall{{ID: "a1-s3-c1", Tool: "budget"}}},
			"waiting (budget_exhausted) until 2026-11-25T12:00:00Z: a1-s3-c1 budget  — codali budget extend run-w --tokens N"},
	} {
		env, err := events.New("run-w", events.KindApprovalRequested, 1, events.ServiceBuilder, deadline, tc.data)
		if err != nil {
			t.Fatal(err)
		}
		if got := describeApproval(env); got != tc.want {
			t.Errorf("describeApproval = %q, want %q", got, tc.want)
		}
	}
}
