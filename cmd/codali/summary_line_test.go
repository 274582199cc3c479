package main

import (
	"testing"

	"github.com/codali-dev/codali/pkg/audit"
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
