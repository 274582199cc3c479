package audit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
)

// recordEvent folds e and records it as the recorder service does.
func recordEvent(t *testing.T, r *audit.Recorder, e events.Envelope) audit.State {
	t.Helper()
	steps, err := audit.Fold(e)
	if err != nil {
		t.Fatalf("Fold %s: %v", e.ID, err)
	}
	st, _ := record(t, r, e.RunID(), steps)
	return st
}

func TestRecorderRefusesEventsOfAnotherRequest(t *testing.T) {
	const run = "victim"
	s := startServer(t)
	r := newRecorder(t, s.store(t), 10, 0)
	evs := runEvents(t, run, policy.Default())
	victim := evs[0]
	recordEvent(t, r, victim)
	recordEvent(t, r, evs[1])

	evil := events.Requested{Request: "steal", Repo: events.RepoRef{URL: "https://attacker.example/repo.git"}}
	evilRun := testRun("hello")
	evilRun.Request = evil
	attacks := map[string]events.Envelope{
		"request as attempt 2":        envelope(t, run, events.KindRequested, 2, "agent/evil", evil),
		"second request as attempt 1": envelope(t, run, events.KindRequested, 1, "agent/evil", evil),
		"plan of another request":     envelope(t, run, events.KindPlan, 1, "codali/architect", events.PlanData{Run: evilRun, Plan: testPlan}),
		"verdict of another request": envelope(t, run, events.KindPassed, 2, "codali/critic", events.VerdictData{Run: evilRun, Status: events.StatusPassed,
			Phase: "critic", Reason: "ok", Attempts: 2, Integrity: events.IntegrityGreen}),
	}
	refused := 0
	for name, e := range attacks {
		t.Run(name, func(t *testing.T) {
			// Two attacks reuse the ids of the victim's own events: the
			// history refuses them by content, and the victim's events
			// are still recorded below.
			st := recordEvent(t, r, e)
			refused++
			if st.Request == nil || st.Request.Request != requestOf(t, victim).Request {
				t.Fatalf("request overwritten: %+v", st.Request)
			}
			if st.Status != audit.StatusRunning || st.Verdict != nil {
				t.Fatalf("run changed by a refused event: status %s verdict %+v", st.Status, st.Verdict)
			}
			if len(st.Refused) != refused {
				t.Fatalf("%d refusals recorded, want %d: %+v", len(st.Refused), refused, st.Refused)
			}
			last := st.Refused[len(st.Refused)-1]
			if last.Event != e.ID || last.Source != e.Source || !strings.Contains(last.Reason, "conflicts with the run's recorded request") {
				t.Fatalf("refusal %+v", last)
			}
		})
	}
	// The run's own events still go through.
	var st audit.State
	for _, e := range evs[2:] {
		st = recordEvent(t, r, e)
	}
	if st.Status != audit.StatusPassed || st.Request.Request != "Make Greet greet" {
		t.Fatalf("the victim's run did not end as its own: %s %+v", st.Status, st.Request)
	}
}

func requestOf(t *testing.T, e events.Envelope) events.Requested {
	t.Helper()
	var req events.Requested
	if err := events.DecodeData(e, &req); err != nil {
		t.Fatal(err)
	}
	return req
}

// TestRefusalAfterARefusedEvent: the recorder records an event it refused
// itself (its claim check failed) as audit.Refuse's step, after the run's
// earlier events still to fold. When the last of those is refused too, the
// refusal step must still be recorded: it starts an event of its own, it is
// not one of the refused event's later steps.
func TestRefusalAfterARefusedEvent(t *testing.T) {
	const run = "victim2"
	s := startServer(t)
	r := newRecorder(t, s.store(t), 10, 0)
	evs := runEvents(t, run, policy.Default())
	recordEvent(t, r, evs[0])

	evil := events.Requested{Request: "steal", Repo: events.RepoRef{URL: "https://attacker.example/repo.git"}}
	second := envelope(t, run, events.KindRequested, 2, "agent/evil", evil)
	third := envelope(t, run, events.KindRequested, 1, "agent/evil", evil)
	steps, err := audit.Fold(second)
	if err != nil {
		t.Fatal(err)
	}
	steps = append(steps, audit.Refuse(third, fmt.Errorf("%w: already has a different request", events.ErrConflict)))
	st, _, err := r.Record(testCtx(t), run, steps)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Refused) != 2 || st.Refused[0].Event != second.ID || st.Refused[1].Event != third.ID {
		t.Fatalf("refusals recorded: %+v, want %s then %s", st.Refused, second.ID, third.ID)
	}
}
