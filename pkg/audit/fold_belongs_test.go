package audit_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
)

// TestFoldCheckAgreesWithCheckBelongs: the check Fold puts on an event's
// first step reads the request from the payload Fold decoded once; it must
// decide exactly as events.CheckBelongs, which decodes the event again,
// for the run's own events, events of another request and payloads that
// do not read as their kind.
func TestFoldCheckAgreesWithCheckBelongs(t *testing.T) {
	const run = "agree"
	own := runEvents(t, run, policy.Default())
	evil := testRun("hello")
	evil.Request = events.Requested{Request: "steal", Repo: events.RepoRef{URL: "https://attacker.example/repo.git"}}
	evs := append([]events.Envelope{}, own...)
	evs = append(evs,
		envelope(t, run, events.KindRequested, 2, "agent/evil", evil.Request),
		envelope(t, run, events.KindRequested, 1, "agent/evil", evil.Request),
		envelope(t, run, events.KindPlan, 1, "codali/architect", events.PlanData{Run: evil, Plan: testPlan}),
		envelope(t, run, events.KindContext, 1, "codali/librarian", events.ContextData{Run: evil, Summary: "x", BundleRef: &events.ArtifactRef{Bucket: events.BucketArtifacts, Name: run + "/1/bundle.json", Size: 1, SHA256: "ab"}}),
		envelope(t, run, events.KindRetry, 2, "codali/critic", events.RetryData{Run: evil, Reason: "r", Previous: testPlan}),
		envelope(t, run, events.KindFailed, 1, "codali/critic", events.VerdictData{Run: events.Run{}, Status: events.StatusFailed, Phase: "critic", Reason: "no request", Attempts: 1, Integrity: events.IntegrityRed}),
	)
	unreadable := own[0]
	unreadable.Data = json.RawMessage(`{"request": 5}`)
	evs = append(evs, unreadable)

	digests := []string{"", requestOf(t, own[0]).Digest(), evil.Request.Digest()}
	checked := 0
	for i, e := range evs {
		steps, err := audit.Fold(e)
		if err != nil {
			t.Fatalf("event %d: Fold: %v", i, err)
		}
		for _, d := range digests {
			st := audit.State{RunID: run, RequestDigest: d}
			if d == "" {
				// With no request recorded, only a request of another
				// attempt is refused (the check's own rule, not CheckBelongs).
				continue
			}
			got := steps[0].Check(&st)
			want := events.CheckBelongs(e, d)
			if fmt.Sprint(got) != fmt.Sprint(want) || errors.Is(got, events.ErrConflict) != errors.Is(want, events.ErrConflict) {
				t.Errorf("event %d (%s) against digest %.8s: check says %v, CheckBelongs %v", i, e.Type, d, got, want)
			}
			checked++
		}
	}
	if checked < 2*len(evs) {
		t.Fatalf("only %d comparisons made", checked)
	}
}
