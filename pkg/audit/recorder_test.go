package audit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/rao/raostore"
)

// record records steps, retrying history conflicts the way the recorder
// service does (a conflict means another writer appended first).
func record(t *testing.T, r *audit.Recorder, run string, steps []audit.Step) (audit.State, []rao.Event) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, h, err := r.Record(testCtx(t), run, steps)
		if err == nil {
			return st, h
		}
		if !errors.Is(err, raostore.ErrConflict) || time.Now().After(deadline) {
			t.Fatalf("Record: %v", err)
		}
	}
}

// canonical is doc in rao's canonical form.
func canonical(t *testing.T, doc []byte) []byte {
	t.Helper()
	c, err := rao.CanonicalizeJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func load(t *testing.T, st *raostore.Store, run string) []rao.Event {
	t.Helper()
	h, _, err := st.Load(testCtx(t), run)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return h
}

func lastSeq(t *testing.T, st *raostore.Store) uint64 {
	t.Helper()
	n, err := st.LastSequence(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRecordWholeRun(t *testing.T) {
	srv := startServer(t)
	store := srv.store(t)
	rec := newRecorder(t, store, 4, 0)
	steps := allSteps(t, runEvents(t, "whole", policy.Default()))
	var st audit.State
	var h []rao.Event
	for _, s := range steps {
		st, h = record(t, rec, "whole", s)
	}
	checkHistory(t, h, causesOf(steps))
	if stored := load(t, store, "whole"); len(stored) != len(h) {
		t.Fatalf("Record reported %d events, the store holds %d", len(h), len(stored))
	}
	if st.Status != audit.StatusPassed || st.Attempt != 2 || len(st.Attempts) != 2 || len(st.Attempts[1].ToolCalls) != 3 {
		t.Errorf("final state %+v", st)
	}
	// The replayed history is the state Record returned, as a JSON value:
	// the history holds it canonical, while the returned state keeps the
	// events' raw JSON (a tool call's arguments) as they came.
	final, err := rao.Replay(h, 0)
	if err != nil {
		t.Fatal(err)
	}
	back, err := audit.DecodeState("whole", final)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(back)
	b, _ := json.Marshal(st)
	if a, b = canonical(t, a), canonical(t, b); string(a) != string(b) {
		t.Errorf("replayed state differs from the recorded one:\n%s\n%s", a, b)
	}
	// Tags: policy hash from the gate on audit events, the recorder's
	// otherwise; pm_rev from the run; every CheckpointEvery-th a checkpoint.
	for _, e := range h {
		if e.Meta.PolicyHash != policy.Default().Hash() || e.Meta.ContractHash != "c0ffee" || e.Meta.Schema != rao.SchemaV2 {
			t.Errorf("event %s meta %+v", e.ID, e.Meta)
		}
		if e.Checkpoint != (e.Seq%4 == 0) {
			t.Errorf("event %s checkpoint %v", e.ID, e.Checkpoint)
		}
	}
	byCause := map[string]rao.Event{}
	for _, e := range h {
		byCause[e.Cause] = e
	}
	if e := byCause["whole.plan.1"]; e.Meta.PMRev != "1" || e.Kind != rao.KindRun {
		t.Errorf("plan event %+v", e)
	}
	if e := byCause["whole.requested.1"]; e.Meta.PMRev != "" {
		t.Errorf("requested event has pm_rev %q", e.Meta.PMRev)
	}
	if e := byCause["whole.built.2#tool3"]; e.Kind != rao.KindAudit || !strings.Contains(e.Summary, "BLOCKED") {
		t.Errorf("blocked tool call event %+v", e)
	}
}

func TestRecordIsIdempotent(t *testing.T) {
	srv := startServer(t)
	store := srv.store(t)
	steps := allSteps(t, runEvents(t, "idem", policy.Default()))
	cases := []struct {
		name string
		// again returns the steps recorded a second time.
		again func() []audit.Step
		rec   func() *audit.Recorder
	}{
		{"same steps, same recorder", func() []audit.Step { return steps[3] }, func() *audit.Recorder { return newRecorder(t, store, 4, 0) }},
		{"same steps, new recorder on a new connection", func() []audit.Step { return steps[3] }, func() *audit.Recorder { return newRecorder(t, srv.store(t), 4, 0) }},
		{"an early event again", func() []audit.Step { return steps[0] }, func() *audit.Recorder { return newRecorder(t, store, 4, 0) }},
		{"every event again", func() []audit.Step { return slices.Concat(steps...) }, func() *audit.Recorder { return newRecorder(t, srv.store(t), 4, 0) }},
	}
	rec := newRecorder(t, store, 4, 0)
	for _, s := range steps {
		record(t, rec, "idem", s)
	}
	before := load(t, store, "idem")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seq := lastSeq(t, store)
			_, h := record(t, tc.rec(), "idem", tc.again())
			if got := lastSeq(t, store); got != seq {
				t.Errorf("stream moved from %d to %d: a recorded step was appended again", seq, got)
			}
			if len(h) != len(before) {
				t.Errorf("history has %d events, want %d", len(h), len(before))
			}
			checkHistory(t, load(t, store, "idem"), causesOf(steps))
		})
	}
}

// TestConcurrentRecorders: two recorders (separate connections, as two
// recorder processes) write one run at the same time; each retries its
// conflicts. Some events reach both (a redelivery to the other process).
func TestConcurrentRecorders(t *testing.T) {
	cases := []struct {
		name    string
		overlap bool
	}{
		{"disjoint events", false},
		{"both recorders see every event", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServer(t)
			run := "conc"
			var steps [][]audit.Step
			for i := range 3 { // three runs' worth of events, renamed into one run
				for _, s := range allSteps(t, runEvents(t, run, policy.Default())) {
					for j := range s {
						s[j].Cause = fmt.Sprintf("%s/%d", s[j].Cause, i)
					}
					steps = append(steps, s)
				}
			}
			recs := []*audit.Recorder{newRecorder(t, srv.store(t), 3, 0), newRecorder(t, srv.store(t), 3, 0)}
			errs := make(chan error, 2)
			var conflicts atomic.Int64
			var wg sync.WaitGroup
			for w, rec := range recs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i, s := range steps {
						if !tc.overlap && i%2 != w {
							continue
						}
						deadline := time.Now().Add(30 * time.Second)
						for {
							_, _, err := rec.Record(testCtx(t), run, s)
							if err == nil {
								break
							}
							if !errors.Is(err, raostore.ErrConflict) || time.Now().After(deadline) {
								errs <- fmt.Errorf("recorder %d, steps %d: %w", w, i, err)
								return
							}
							conflicts.Add(1)
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			t.Logf("%d conflicts retried", conflicts.Load())
			h := load(t, srv.store(t), run)
			checkHistory(t, h, causesOf(steps))
		})
	}
}

// TestRecorderRestartedMidRun: a recorder appends part of a built event's
// steps and dies; a new recorder on a new connection gets the event
// redelivered and continues the run. Nothing is duplicated or lost.
func TestRecorderRestartedMidRun(t *testing.T) {
	srv := startServer(t)
	steps := allSteps(t, runEvents(t, "restart", policy.Default()))
	first := newRecorder(t, srv.store(t), 3, 0)
	for _, s := range steps[:3] {
		record(t, first, "restart", s)
	}
	built := steps[3] // two tool calls and the change
	record(t, first, "restart", built[:1])
	// The first recorder is gone; a new one starts from the stored history.
	second := newRecorder(t, srv.store(t), 3, 0)
	seq := lastSeq(t, srv.store(t))
	_, h := record(t, second, "restart", built)
	if got := lastSeq(t, srv.store(t)); got != seq+2 {
		t.Errorf("redelivered built event appended %d events, want the 2 missing ones", got-seq)
	}
	for _, s := range steps[4:] {
		_, h = record(t, second, "restart", s)
	}
	checkHistory(t, h, causesOf(steps))
	checkHistory(t, load(t, srv.store(t), "restart"), causesOf(steps))
}

// TestCapAndCompaction: with a small cap the history is compacted to a
// checkpoint as it grows; what remains verifies, replays to the full
// state, and still recognises redelivered events that were compacted away.
func TestCapAndCompaction(t *testing.T) {
	cases := []struct {
		name             string
		every, maxEvents int
	}{
		{"checkpoint every 2, cap 5", 2, 5},
		{"checkpoint every 3, cap 3", 3, 3},
		{"checkpoint every 1, cap 1", 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServer(t)
			store := srv.store(t)
			run := "cap"
			steps := allSteps(t, runEvents(t, run, policy.Default()))
			capped := newRecorder(t, store, tc.every, tc.maxEvents)
			full := newRecorder(t, store, tc.every, 0)
			var st audit.State
			var h []rao.Event
			for _, s := range steps {
				st, h = record(t, capped, run, s)
				record(t, full, "uncapped", s)
				if len(h) > tc.maxEvents {
					t.Fatalf("history of %d events after compaction, cap %d", len(h), tc.maxEvents)
				}
			}
			stored := load(t, store, run)
			if len(stored) != len(h) || stored[0].Seq != h[0].Seq {
				t.Fatalf("store holds %d events from seq %d, Record reported %d from %d", len(stored), stored[0].Seq, len(h), h[0].Seq)
			}
			if !stored[0].Checkpoint || stored[0].Seq == 1 || len(stored) > tc.maxEvents {
				t.Fatalf("history starts at seq %d (checkpoint %v) with %d events", stored[0].Seq, stored[0].Checkpoint, len(stored))
			}
			if want := uint64(len(causesOf(steps))); stored[len(stored)-1].Seq != want {
				t.Errorf("last seq %d, want %d (one per step)", stored[len(stored)-1].Seq, want)
			}
			rep := rao.Verify(stored)
			if !rep.OK() || !rep.Has(stored[0].Seq, rao.BreakCompacted) {
				t.Errorf("verify:\n%s", rep)
			}
			checkHistory(t, stored, nil)
			got, err := rao.Replay(stored, 0)
			if err != nil {
				t.Fatal(err)
			}
			want, err := rao.Replay(load(t, store, "uncapped"), 0)
			if err != nil {
				t.Fatal(err)
			}
			if string(strings.ReplaceAll(string(got), `"run_id":"cap"`, "")) != strings.ReplaceAll(string(want), `"run_id":"uncapped"`, "") {
				t.Errorf("compacted history replays to\n%s\nthe full one to\n%s", got, want)
			}
			if st.Status != audit.StatusPassed {
				t.Errorf("final state %+v", st)
			}
			// Redelivering the first event, long compacted away, adds nothing.
			seq := lastSeq(t, store)
			record(t, capped, run, steps[0])
			if lastSeq(t, store) != seq {
				t.Error("a compacted event was recorded again")
			}
		})
	}
}

// failingStore fails Load, Append or Compact.
type failingStore struct {
	audit.Store
	load, append, compact error
}

func (f failingStore) Load(ctx context.Context, run string) ([]rao.Event, uint64, error) {
	if f.load != nil {
		return nil, 0, f.load
	}
	return f.Store.Load(ctx, run)
}

func (f failingStore) AppendBatch(ctx context.Context, evs []rao.Sealed, expected uint64) (uint64, error) {
	if f.append != nil {
		return 0, f.append
	}
	return f.Store.AppendBatch(ctx, evs, expected)
}

func (f failingStore) Compact(ctx context.Context, run string, first uint64) error {
	if f.compact != nil {
		return f.compact
	}
	return f.Store.Compact(ctx, run, first)
}

func TestRecordStoreErrors(t *testing.T) {
	srv := startServer(t)
	boom := errors.New("boom")
	steps := allSteps(t, runEvents(t, "errs", policy.Default()))
	cases := []struct {
		name  string
		store func(base audit.Store) audit.Store
		want  string
	}{
		{"load fails", func(b audit.Store) audit.Store { return failingStore{Store: b, load: boom} }, "could not load history of errs"},
		{"append fails", func(b audit.Store) audit.Store { return failingStore{Store: b, append: boom} }, "could not append errs."},
		{"compact fails", func(b audit.Store) audit.Store { return failingStore{Store: b, compact: boom} }, "could not compact history of errs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := srv.store(t)
			// A few events first, so that the cap of 1 compacts.
			seed := newRecorder(t, base, 1, 0)
			for _, s := range steps[:3] {
				record(t, seed, "errs", s)
			}
			rec := newRecorder(t, tc.store(base), 1, 1)
			_, _, err := rec.Record(testCtx(t), "errs", slices.Concat(steps[3:5]...))
			if !errors.Is(err, boom) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q wrapping boom", err, tc.want)
			}
		})
	}
}

func TestRecordRedactsState(t *testing.T) {
	srv := startServer(t)
	store := srv.store(t)
	rec := newRecorder(t, store, 2, 0)
	const secret = "AKIAIOSFODNN7EXAMPLE"
	req := envelope(t, "sec", "requested", 1, "agent/test", map[string]any{
		"request": "use key " + secret, "repo": map[string]string{"path": "/r"},
		"options": map[string]any{"labels": map[string]string{"token": "t0ps3cret"}}})
	steps, err := audit.Fold(req)
	if err != nil {
		t.Fatal(err)
	}
	_, h := record(t, rec, "sec", steps)
	final, _ := rao.Replay(h, 0)
	if strings.Contains(string(final), secret) || !strings.Contains(string(final), "[REDACTED:aws-key]") {
		t.Errorf("state not redacted: %s", final)
	}
	for _, e := range load(t, store, "sec") {
		raw, _ := rao.Encode(e)
		if strings.Contains(string(raw), secret) {
			if strings.Contains(e.Summary, secret) && !strings.Contains(strings.ReplaceAll(string(raw), e.Summary, ""), secret) {
				t.Fatalf("Recorder.Record stored the step summary unredacted: event %s summary %q", e.ID, e.Summary)
			}
			t.Errorf("secret stored in event %s: %s", e.ID, raw)
		}
	}
}

// countingStore counts full history loads.
type countingStore struct {
	audit.Store
	loads *int
}

func (c countingStore) Load(ctx context.Context, runID string) ([]rao.Event, uint64, error) {
	*c.loads++
	return c.Store.Load(ctx, runID)
}

// TestRecorderCachesHistories: events of a run in progress do not reread
// its whole history, and a write by another recorder invalidates the copy.
func TestRecorderCachesHistories(t *testing.T) {
	srv := startServer(t)
	base := srv.store(t)
	loads := 0
	rec := newRecorder(t, countingStore{Store: base, loads: &loads}, 10, 0)
	evs := runEvents(t, "cached", policy.Default())
	for _, e := range evs[:3] {
		steps, err := audit.Fold(e)
		if err != nil {
			t.Fatal(err)
		}
		record(t, rec, "cached", steps)
	}
	if loads != 1 {
		t.Fatalf("history loaded %d times for 3 events, want once", loads)
	}
	// Another recorder appends: the cache must not be trusted any more.
	other := newRecorder(t, base, 10, 0)
	steps, _ := audit.Fold(evs[3])
	record(t, other, "cached", steps)
	steps, _ = audit.Fold(evs[4])
	record(t, rec, "cached", steps)
	if loads != 2 {
		t.Fatalf("loads = %d, want a reload after a foreign append", loads)
	}
	if rep := rao.Verify(load(t, base, "cached")); !rep.OK() {
		t.Fatalf("history broken: %v", rep)
	}
	// The rest of the run, from the reloaded entry: complete, in order.
	steps5 := allSteps(t, evs)
	for _, ss := range steps5[5:] {
		record(t, rec, "cached", ss)
	}
	checkHistory(t, load(t, base, "cached"), causesOf(steps5))
}

// TestRecorderCacheEvictsLeastRecentRuns: with more runs in progress than
// CachedRuns, the least recently recorded runs are dropped (and reloaded
// from the store at their next event), the recent ones stay cached, and
// every history is complete and verifies.
func TestRecorderCacheEvictsLeastRecentRuns(t *testing.T) {
	srv := startServer(t)
	base := srv.store(t)
	loads := 0
	rec := newRecorder(t, countingStore{Store: base, loads: &loads}, 10, 0)
	rec.CachedRuns = 3
	const runs = 6
	steps := make([][][]audit.Step, runs)
	for i := range runs {
		run := fmt.Sprintf("lru%d", i)
		steps[i] = allSteps(t, runEvents(t, run, policy.Default()))
		record(t, rec, run, steps[i][0])
	}
	if loads != runs {
		t.Fatalf("loads = %d, want one per new run", loads)
	}
	// lru3..lru5 are the 3 most recent: cached.
	for i := 3; i < runs; i++ {
		record(t, rec, fmt.Sprintf("lru%d", i), steps[i][1])
	}
	if loads != runs {
		t.Fatalf("loads = %d after events of the most recent runs, want no reload", loads)
	}
	// lru0..lru2 were evicted: each reloads once, and evicts others.
	for i := range 3 {
		record(t, rec, fmt.Sprintf("lru%d", i), steps[i][1])
	}
	if loads != runs+3 {
		t.Fatalf("loads = %d after events of evicted runs, want %d", loads, runs+3)
	}
	for i := range runs {
		run := fmt.Sprintf("lru%d", i)
		for _, ss := range steps[i][2:] {
			record(t, rec, run, ss)
		}
		checkHistory(t, load(t, base, run), causesOf(steps[i]))
	}
}

// TestRecorderCacheByteBudget: a run whose state is larger than
// CachedStateBytes is not kept: each event reloads it, and the history is
// still complete.
func TestRecorderCacheByteBudget(t *testing.T) {
	srv := startServer(t)
	base := srv.store(t)
	loads := 0
	rec := newRecorder(t, countingStore{Store: base, loads: &loads}, 10, 0)
	rec.CachedStateBytes = 16 // smaller than any state
	steps := allSteps(t, runEvents(t, "budget", policy.Default()))
	for _, ss := range steps[:3] {
		record(t, rec, "budget", ss)
	}
	if loads != 3 {
		t.Fatalf("loads = %d, want one per event (nothing cached)", loads)
	}
	for _, ss := range steps[3:] {
		record(t, rec, "budget", ss)
	}
	checkHistory(t, load(t, base, "budget"), causesOf(steps))
}
