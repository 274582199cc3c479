package audit_test

import (
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
)

// TestFoldKeepsTheJudgement: the history keeps the plan's mode and
// feedback, the critic's retry phase, alignment and review, and the model
// usage per attempt and per run.
func TestFoldKeepsTheJudgement(t *testing.T) {
	const run = "judged"
	r := testRun("hello")
	arch := events.Call("architect", "local", "m", 100, 10, 0)
	crit := events.Call("critic", "local", "m", 50, 5, 0)
	plan := events.Plan{Summary: "p", Steps: []events.PlanStep{{ID: "s1", Description: "d"}}, Verify: []events.VerifyCommand{{Name: "t", Command: []string{"true"}}}}
	r.Usage = []events.ModelUsage{arch}
	evs := []events.Envelope{
		envelope(t, run, events.KindPlan, 1, "codali/architect", events.PlanData{Run: r, Plan: plan, Mode: events.PlanModePlanned, Usage: []events.ModelUsage{arch}}),
	}
	r.Usage = events.MergeUsage(r.Usage, crit)
	align := &events.Alignment{Touched: []string{"x.go"}, Targets: []string{"a.go"}, Unrelated: []string{"x.go"}, Reasons: []string{"changed x.go, which the plan neither targets nor declares as created"}}
	evs = append(evs,
		envelope(t, run, events.KindRetry, 2, "codali/critic", events.RetryData{Run: r, Reason: "changed x.go", Previous: plan,
			RetryPhase: events.RetryBuilder, Reasons: align.Reasons, Alignment: align, Review: &events.Review{Status: events.ReviewSkipped, Skipped: "failed"}, Usage: []events.ModelUsage{crit}}),
		envelope(t, run, events.KindPlan, 2, "codali/architect", events.PlanData{Run: r, Plan: plan, Mode: events.PlanModeReused, Feedback: align.Reasons}),
	)
	var st audit.State
	var summaries []string
	for _, e := range evs {
		steps, err := audit.Fold(e)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range steps {
			s.Mutate(&st)
			summaries = append(summaries, s.Summary)
		}
	}
	joined := strings.Join(summaries, "\n")
	for _, want := range []string{"retry as attempt 2 via the builder", "architect re-emitted the plan to the builder (attempt 2) with 1 critic reason(s), no model call"} {
		if !strings.Contains(joined, want) {
			t.Errorf("summaries lack %q:\n%s", want, joined)
		}
	}
	if len(st.Attempts) != 2 {
		t.Fatalf("attempts %+v", st.Attempts)
	}
	a1, a2 := st.Attempts[0], st.Attempts[1]
	if a1.PlanMode != events.PlanModePlanned || a1.Result == nil || a1.Result.RetryPhase != events.RetryBuilder || a1.Result.Alignment == nil ||
		a1.Result.Review == nil || a1.Result.Review.Status != events.ReviewSkipped || len(a1.Usage) != 2 {
		t.Errorf("attempt 1 %+v result %+v", a1, a1.Result)
	}
	if a2.PlanMode != events.PlanModeReused || len(a2.Feedback) != 1 {
		t.Errorf("attempt 2 %+v", a2)
	}
	if tot := events.TotalUsage(st.Usage); tot.Calls != 2 || tot.InputTokens != 150 {
		t.Errorf("run usage %+v", st.Usage)
	}
	if s := audit.SummaryOf(st, nil); s.Usage == nil || s.Usage.OutputTokens != 15 {
		t.Errorf("summary usage %+v", s.Usage)
	}
}
