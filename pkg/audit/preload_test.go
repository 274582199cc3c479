package audit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/rao/raostore"
)

// TestPreloadAfterAnotherWriter: a history Preload put in the cache is
// not trusted once another recorder process appended to the run: the
// append conflicts, the entry is dropped, and the retry records after the
// other process's events.
func TestPreloadAfterAnotherWriter(t *testing.T) {
	srv := startServer(t)
	const run = "preload"
	steps := allSteps(t, runEvents(t, run, policy.Default()))
	a := newRecorder(t, srv.store(t), 3, 0)
	b := newRecorder(t, srv.store(t), 3, 0)
	if _, err := a.RecordChange(testCtx(t), run, steps[0]); err != nil {
		t.Fatal(err)
	}
	if err := b.Preload(testCtx(t), run); err != nil || !b.Cached(run) {
		t.Fatalf("Preload: %v, cached %v", err, b.Cached(run))
	}
	if _, err := a.RecordChange(testCtx(t), run, steps[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := b.RecordChange(testCtx(t), run, steps[2]); !errors.Is(err, raostore.ErrConflict) {
		t.Fatalf("RecordChange on a stale preload: err = %v, want a conflict", err)
	}
	if b.Cached(run) {
		t.Fatal("the stale entry is still cached after the conflict")
	}
	c, err := b.RecordChange(testCtx(t), run, steps[2])
	if err != nil {
		t.Fatal(err)
	}
	want := len(steps[0]) + len(steps[1]) + len(steps[2])
	hist := load(t, srv.store(t), run)
	if len(hist) != want || len(c.History) != want {
		t.Fatalf("%d events stored, %d returned, want %d", len(hist), len(c.History), want)
	}
	for i, s := range append(append(append([]audit.Step{}, steps[0]...), steps[1]...), steps[2]...) {
		if hist[i].Cause != s.Cause {
			t.Fatalf("event %d has cause %s, want %s", i, hist[i].Cause, s.Cause)
		}
	}
	if rep := rao.Verify(hist); !rep.OK() {
		t.Fatalf("history does not verify:\n%s", rep)
	}
}

// TestPreloadError: a history that cannot be read is reported and
// nothing is cached.
func TestPreloadError(t *testing.T) {
	srv := startServer(t)
	r := newRecorder(t, srv.store(t), 3, 0)
	ctx, cancel := context.WithCancel(testCtx(t))
	cancel()
	err := r.Preload(ctx, "unreadable")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Preload with a cancelled context: %v", err)
	}
	if r.Cached("unreadable") {
		t.Fatal("a failed Preload cached the run")
	}
}
