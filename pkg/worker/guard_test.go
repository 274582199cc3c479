package worker_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/runclaim"
	"github.com/codali-dev/codali/pkg/worker"
)

// TestGuardRefusesEventsOfAnotherRequest: with run claims as the guard, a
// second request for a run id (attempt 2, or malformed) is dead-lettered
// as refused and neither reaches the handler nor ends the run; a malformed
// request on a new run id still ends that run.
func TestGuardRefusesEventsOfAnotherRequest(t *testing.T) {
	h := newHarness(t)
	claims, err := runclaim.Open(h.ctx, h.js)
	if err != nil {
		t.Fatal(err)
	}
	var handled atomic.Int32
	h.start(t, worker.Config{Service: events.ServiceLibrarian, Guard: claims}, func(_ context.Context, in events.Envelope) ([]events.Envelope, error) {
		handled.Add(1)
		return contextOut(in)
	})
	h.publish(t, requested(t, "own"))
	waitFor(t, "the request handled", func() bool { return len(h.messages(t, events.StreamWork, events.KindContext.Subject("own"))) == 1 })

	evil, err := events.New("own", events.KindRequested, 2, "agent/evil", time.Now(),
		events.Requested{Request: "steal", Repo: events.RepoRef{Path: "/other"}})
	if err != nil {
		t.Fatal(err)
	}
	h.publish(t, evil)
	h.publishRaw(t, events.KindRequested.Subject("own"), []byte(`{"specversion": "1.0", "id": `))
	h.publishRaw(t, events.KindRequested.Subject("fresh"), []byte(`{"specversion": "1.0", "id": `))

	dlq := events.DeadLetterSubject(events.ServiceLibrarian)
	waitFor(t, "two refusals dead-lettered", func() bool { return len(h.messages(t, events.StreamDeadLetter, dlq)) == 2 })
	for _, m := range h.messages(t, events.StreamDeadLetter, dlq) {
		if reason := m.Header.Get(events.HeaderDeadLetterReason); !strings.HasPrefix(reason, "refused: ") || !strings.Contains(reason, "own") {
			t.Errorf("dead letter reason %q", reason)
		}
	}
	waitFor(t, "the malformed new run ended", func() bool { return len(h.messages(t, events.StreamWork, events.KindFailed.Subject("fresh"))) == 1 })
	if n := len(h.messages(t, events.StreamWork, events.KindFailed.Subject("own"))); n != 0 {
		t.Fatalf("the claimed run was ended by a refused event (%d failed events)", n)
	}
	if n := handled.Load(); n != 1 {
		t.Fatalf("handler called %d times, want 1 (refused events never reach it)", n)
	}
	if n := len(h.messages(t, events.StreamWork, events.KindContext.Subject("own"))); n != 1 {
		t.Fatalf("%d context events for the claimed run, want 1", n)
	}
}

// TestMalformedDecisionDoesNotEndTheRun: approval_decided is published by
// agents, on any run's subject; one that does not decode (bad JSON, an id
// that is not the call's, an envelope naming another run, too large) is
// dead-lettered as refused and never ends the run it names.
func TestMalformedDecisionDoesNotEndTheRun(t *testing.T) {
	h := newHarness(t)
	claims, err := runclaim.Open(h.ctx, h.js)
	if err != nil {
		t.Fatal(err)
	}
	var handled atomic.Int32
	h.start(t, worker.Config{Service: events.ServiceBuilder, Guard: claims}, func(_ context.Context, in events.Envelope) ([]events.Envelope, error) {
		handled.Add(1)
		return nil, nil
	})
	subj := events.KindApprovalDecided.Subject("victim")
	other, err := events.NewKeyed("other", events.KindApprovalDecided, 1, "a1-s1-c1", "agent/evil", time.Now(),
		events.ApprovalDecidedData{Call: "a1-s1-c1", Decision: events.DecisionApprove, By: "evil", At: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	otherRaw, err := other.Encode(0)
	if err != nil {
		t.Fatal(err)
	}
	bad := []string{
		`{"specversion": "1.0", "id": `,
		`{"specversion":"1.0","id":"victim.approval_decided.1.","source":"agent/evil","type":"dev.codali.run.approval_decided","subject":"victim","attempt":1,"data":{}}`,
		string(otherRaw),
		`{"specversion":"1.0","id":"victim.approval_decided.1.a1-s1-c1","source":"agent/evil","type":"dev.codali.run.approval_decided","subject":"victim","attempt":1,"data":{"note":"` +
			strings.Repeat("x", events.DefaultMaxEventBytes) + `"}}`,
	}
	for _, b := range bad {
		h.publishRaw(t, subj, []byte(b))
	}
	dlq := events.DeadLetterSubject(events.ServiceBuilder)
	waitFor(t, "the malformed decisions dead-lettered", func() bool { return len(h.messages(t, events.StreamDeadLetter, dlq)) == len(bad) })
	for _, m := range h.messages(t, events.StreamDeadLetter, dlq) {
		if reason := m.Header.Get(events.HeaderDeadLetterReason); !strings.HasPrefix(reason, "refused: ") {
			t.Errorf("dead letter reason %q, want a refusal", reason)
		}
	}
	if n := len(h.messages(t, events.StreamWork, events.KindFailed.Subject("victim"))); n != 0 {
		t.Fatalf("a malformed decision ended the run it names (%d failed events)", n)
	}
	if n := handled.Load(); n != 0 {
		t.Fatalf("handler called %d times for malformed decisions", n)
	}
}
