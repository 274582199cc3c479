package runclaim_test

import (
	"context"
	"errors"
	"github.com/nats-io/nats.go/jetstream"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/runclaim"
)

// openStore provisions a fresh embedded server and opens a claim store on
// it; the context ends with the test (at most one minute).
func openStore(t *testing.T, opts ...runclaim.Option) (context.Context, jetstream.JetStream, *runclaim.Store) {
	t.Helper()
	ctx, js := natstest.StartProvisioned(t)
	s, err := runclaim.Open(ctx, js, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, js, s
}

func TestAdmitOneRequestPerRunID(t *testing.T) {
	ctx, _, s := openStore(t)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	mk := func(run string, kind events.Kind, attempt int, source string, data any) events.Envelope {
		e, err := events.New(run, kind, attempt, source, now, data)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	own := events.Requested{Request: "fix it", Repo: events.RepoRef{Path: "/srv/own"}}
	evil := events.Requested{Request: "steal", Repo: events.RepoRef{URL: "https://evil.example/x.git"}}
	ownRun := events.Run{Request: own}

	steps := []struct {
		name     string
		e        events.Envelope
		conflict bool
	}{
		{"plan before any request", mk("r1", events.KindPlan, 1, "codali/architect", events.PlanData{Run: ownRun}), true},
		{"request as attempt 2 on a fresh id", mk("r1", events.KindRequested, 2, "agent/evil", evil), true},
		{"first request claims", mk("r1", events.KindRequested, 1, "agent/own", own), false},
		{"redelivered request", mk("r1", events.KindRequested, 1, "agent/own", own), false},
		{"second request", mk("r1", events.KindRequested, 1, "agent/evil", evil), true},
		{"second request as attempt 2", mk("r1", events.KindRequested, 2, "agent/evil", evil), true},
		{"own plan", mk("r1", events.KindPlan, 1, "codali/architect", events.PlanData{Run: ownRun}), false},
		{"plan of another request", mk("r1", events.KindPlan, 1, "codali/architect", events.PlanData{Run: events.Run{Request: evil}}), true},
		{"failed of an unclaimed run", mk("r2", events.KindFailed, 1, "codali/librarian", events.VerdictData{Status: "failed", Integrity: "red"}), false},
	}
	for _, st := range steps {
		err := s.Admit(ctx, st.e)
		if got := errors.Is(err, events.ErrConflict); got != st.conflict {
			t.Fatalf("%s: conflict = %v (%v), want %v", st.name, got, err, st.conflict)
		}
	}
	c, ok, err := s.Get(ctx, "r1")
	if err != nil || !ok || c.Digest != own.Digest() || c.Source != "agent/own" {
		t.Fatalf("claim %+v %v %v", c, ok, err)
	}
	if claimed, _ := s.Claimed(ctx, "r2", 0); claimed {
		t.Fatal("a failed event claimed a run")
	}
}

func TestConcurrentRequestsOneWinner(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, _, js := natstest.StartJS(t)
	if err := bus.Provision(ctx, js, bus.Topology{}, nil); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	const n = 8
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		_, js := natstest.Connect(t, srv)
		s, err := runclaim.Open(ctx, js)
		if err != nil {
			t.Fatal(err)
		}
		e, err := events.New("race", events.KindRequested, 1, "agent", now, events.Requested{Request: string(rune('a' + i)), Repo: events.RepoRef{Path: "/x"}})
		if err != nil {
			t.Fatal(err)
		}
		go func() { errs <- s.Admit(ctx, e) }()
	}
	admitted := 0
	for i := 0; i < n; i++ {
		err := <-errs
		switch {
		case err == nil:
			admitted++
		case !errors.Is(err, events.ErrConflict):
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if admitted != 1 {
		t.Fatalf("%d requests admitted for one run id, want 1", admitted)
	}
}

func TestAdmitChecksTheProject(t *testing.T) {
	resolve := func(r events.Requested) (string, error) { return "proj-of-" + r.Repo.Path, nil }
	ctx, _, s := openStore(t, runclaim.WithProjects(resolve))
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	req := events.Requested{Request: "x", Repo: events.RepoRef{Path: "/srv/a"}}
	mk := func(kind events.Kind, data any) events.Envelope {
		e, err := events.New("p1", kind, 1, "test", now, data)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if err := s.Admit(ctx, mk(events.KindRequested, req)); err != nil {
		t.Fatal(err)
	}
	if err := s.Admit(ctx, mk(events.KindPlan, events.PlanData{Run: events.Run{Request: req, Project: "proj-of-/srv/a"}})); err != nil {
		t.Fatalf("own project: %v", err)
	}
	err := s.Admit(ctx, mk(events.KindPlan, events.PlanData{Run: events.Run{Request: req, Project: "victim"}}))
	if !errors.Is(err, events.ErrConflict) {
		t.Fatalf("another project: %v, want ErrConflict", err)
	}
}

// TestEarliestStoredRequestWins: when the attacker's request is handled
// before the victim's (concurrent handlers), the claim still goes to the
// request stored first.
func TestEarliestStoredRequestWins(t *testing.T) {
	ctx, js, s := openStore(t)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	store := func(source, text string) events.Envelope {
		e, err := events.New("race", events.KindRequested, 1, source, now, events.Requested{Request: text, Repo: events.RepoRef{Path: "/x"}})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := e.Encode(0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := js.Publish(ctx, events.KindRequested.Subject("race"), raw); err != nil {
			t.Fatal(err)
		}
		return e
	}
	if _, err := js.Publish(ctx, events.KindRequested.Subject("race"), []byte(`not json`)); err != nil {
		t.Fatal(err)
	}
	victim := store("agent/victim", "victim")
	evil := store("agent/evil", "evil")
	if err := s.Admit(ctx, evil); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("the later request handled first: %v, want ErrConflict", err)
	}
	if err := s.Admit(ctx, victim); err != nil {
		t.Fatalf("the earliest request: %v", err)
	}
	if c, _, _ := s.Get(ctx, "race"); c.Digest != (events.Requested{Request: "victim", Repo: events.RepoRef{Path: "/x"}}).Digest() || c.Source != "agent/victim" {
		t.Fatalf("claim %+v is not the victim's request", c)
	}
}

// TestClaimsCached: a claim read (or made) once is served from memory for
// a while — still refusing another request's events — and read from the
// bucket again afterwards; another process's Store reads the bucket.
func TestClaimsCached(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	ctx, js, s := openStore(t, runclaim.WithClock(clock))
	own := events.Requested{Request: "fix it", Repo: events.RepoRef{Path: "/srv/own"}}
	req, err := events.New("r1", events.KindRequested, 1, "agent/own", now, own)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Admit(ctx, req); err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(ctx, events.BucketRequests)
	if err != nil {
		t.Fatal(err)
	}
	if err := kv.Purge(ctx, "r1"); err != nil {
		t.Fatal(err)
	}
	if c, ok, err := s.Get(ctx, "r1"); err != nil || !ok || c.Digest != own.Digest() {
		t.Fatalf("cached claim: %+v %v %v", c, ok, err)
	}
	evil, err := events.New("r1", events.KindPlan, 1, "codali/architect", now, events.PlanData{Run: events.Run{Request: events.Requested{Request: "steal"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Admit(ctx, evil); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("another request's plan against a cached claim: %v", err)
	}
	other, err := runclaim.Open(ctx, js, runclaim.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := other.Get(ctx, "r1"); err != nil || ok {
		t.Fatalf("another store found the purged claim: %v %v", ok, err)
	}
	now = now.Add(2 * time.Minute)
	if _, ok, err := s.Get(ctx, "r1"); err != nil || ok {
		t.Fatalf("the cache outlived its time: %v %v", ok, err)
	}
}

// TestAdmitRequestsUnreadable: when the stored requests of an unclaimed
// run cannot be read (read at the same time as the claim), Admit reports
// a transient error and claims nothing.
func TestAdmitRequestsUnreadable(t *testing.T) {
	ctx, js, s := openStore(t)
	req, err := events.New("lost", events.KindRequested, 1, "agent/own", time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC),
		events.Requested{Request: "fix it", Repo: events.RepoRef{Path: "/srv/own"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := js.DeleteStream(ctx, events.StreamWork); err != nil {
		t.Fatal(err)
	}
	if err := s.Admit(ctx, req); err == nil || errors.Is(err, events.ErrConflict) {
		t.Fatalf("Admit with the requests unreadable: %v, want a transient error", err)
	}
	if _, ok, err := s.Get(ctx, "lost"); err != nil || ok {
		t.Fatalf("claimed %v (%v) though the requests could not be read", ok, err)
	}
}
