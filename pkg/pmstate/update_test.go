package pmstate

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/nats-io/nats.go/jetstream"
)

// appendFn returns an UpdateFunc appending values to L1 memory.
func appendFn(values ...string) UpdateFunc {
	return func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		var ops []cognition.L1MemoryPatchOp
		for _, v := range values {
			ops = append(ops, cognition.AppendOp(v))
		}
		return nil, ops, nil
	}
}

// goalFn returns an UpdateFunc applying the given goal-tree ops.
func goalFn(ops ...cognition.GoalTreePatchOp) UpdateFunc {
	return func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		return ops, nil, nil
	}
}

// kvRevision returns the KV revision of project's entry, 0 when absent.
func kvRevision(t *testing.T, kv jetstream.KeyValue, project string) uint64 {
	t.Helper()
	e, err := kv.Get(testCtx(t), mustKey(t, project))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0
	}
	if err != nil {
		t.Fatalf("kv.Get: %v", err)
	}
	return e.Revision()
}

func TestUpdateCreatesThenUpdates(t *testing.T) {
	s, kv := newStore(t)
	ctx := testCtx(t)
	first, err := s.Update(ctx, "p", appendFn("a"))
	if err != nil {
		t.Fatalf("first Update: %v", err)
	}
	if !first.Changed || first.Rev != 1 || first.State.Revision != 1 || !slices.Equal(first.State.L1Memory.Entries, []string{"a"}) {
		t.Errorf("first Update = %+v", first)
	}
	second, err := s.Update(ctx, "p", goalFn(cognition.SproutOp(cognition.UserRootID, "g", "goal", 5)))
	if err != nil {
		t.Fatalf("second Update: %v", err)
	}
	if !second.Changed || second.Rev != 2 || second.State.Revision != 2 {
		t.Errorf("second Update = %+v", second)
	}
	if _, ok := second.State.GoalTree.UserPartition.Find("g"); !ok || !slices.Equal(second.State.L1Memory.Entries, []string{"a"}) {
		t.Errorf("second Update lost data: %+v", second.State)
	}
	got, rev, err := s.Get(ctx, "p")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if rev != second.Rev || rev != kvRevision(t, kv, "p") || !got.Equal(second.State) {
		t.Errorf("Get = %+v at %d, want %+v at %d", got, rev, second.State, second.Rev)
	}
}

func TestUpdateWithoutChangeWritesNothing(t *testing.T) {
	s, kv := newStore(t)
	ctx := testCtx(t)
	tests := []struct {
		name      string
		project   string
		seed      UpdateFunc
		fn        UpdateFunc
		wantRev   uint64
		wantDiags int
	}{
		{name: "missing project, no ops", project: "empty", fn: goalFn(), wantRev: 0},
		{name: "missing project, only failing ops", project: "failing", fn: goalFn(cognition.PruneOp("nope"), cognition.PruneOp(cognition.UserRootID)), wantRev: 0, wantDiags: 2},
		{name: "existing project, unchanged tilt", project: "tilt", seed: goalFn(cognition.SproutOp(cognition.UserRootID, "g", "g", 7)), fn: goalFn(cognition.TiltOp("g", 7)), wantRev: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want cognition.CognitionState
			if tt.seed != nil {
				r, err := s.Update(ctx, tt.project, tt.seed)
				if err != nil {
					t.Fatalf("seed Update: %v", err)
				}
				want = r.State
			} else {
				want = cognition.NewState()
			}
			before := kvRevision(t, kv, tt.project)
			res, err := s.Update(ctx, tt.project, tt.fn)
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			if res.Changed || !res.State.Equal(want) || len(res.Diagnostics) != tt.wantDiags {
				t.Errorf("Update = %+v", res)
			}
			if after := kvRevision(t, kv, tt.project); after != before || res.Rev != after {
				t.Errorf("KV revision %d -> %d, result rev %d", before, after, res.Rev)
			}
			if tt.seed != nil && res.Rev == 0 {
				t.Error("result rev 0 for an existing project")
			}
		})
	}
}

func TestUpdateReportsDiagnostics(t *testing.T) {
	s, _ := newStore(t)
	res, err := s.Update(testCtx(t), "p", func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		return []cognition.GoalTreePatchOp{cognition.TiltOp("missing", 1)}, []cognition.L1MemoryPatchOp{cognition.AppendOp("kept")}, nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if !res.Changed || len(res.Diagnostics) != 1 || res.Diagnostics[0].Code != cognition.CodeMissingNode {
		t.Errorf("Update = %+v", res)
	}
}

func TestUpdateFuncGetsAPrivateCopy(t *testing.T) {
	s, _ := newStore(t)
	ctx := testCtx(t)
	if _, err := s.Update(ctx, "p", appendFn("orig")); err != nil {
		t.Fatalf("seed: %v", err)
	}
	res, err := s.Update(ctx, "p", func(cur cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		cur.L1Memory.Entries[0] = "mutated"
		cur.GoalTree.UserPartition.Weight = 500
		return nil, []cognition.L1MemoryPatchOp{cognition.AppendOp("next")}, nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if !slices.Equal(res.State.L1Memory.Entries, []string{"orig", "next"}) || res.State.GoalTree.UserPartition.Weight != 0 {
		t.Errorf("mutation of cur leaked into the result: %+v", res.State)
	}
}

func TestUpdateBoundsL1Memory(t *testing.T) {
	s, _ := newStore(t, WithMaxL1Entries(3))
	ctx := testCtx(t)
	if _, err := s.Update(ctx, "p", appendFn("1", "2")); err != nil {
		t.Fatalf("seed: %v", err)
	}
	res, err := s.Update(ctx, "p", appendFn("3", "4", "5"))
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if !slices.Equal(res.State.L1Memory.Entries, []string{"3", "4", "5"}) || res.State.Revision != 2 || res.Rev != 2 {
		t.Errorf("Update = %+v", res)
	}
}

func TestUpdateErrors(t *testing.T) {
	s, kv := newStore(t)
	ctx := testCtx(t)
	if _, err := kv.Put(ctx, mustKey(t, "corrupt"), []byte("{")); err != nil {
		t.Fatalf("Put: %v", err)
	}
	errBoom := errors.New("boom")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		project string
		fn      UpdateFunc
		wantErr []error
	}{
		{name: "empty project id", ctx: ctx, project: "", fn: appendFn("x"), wantErr: []error{ErrInvalidProject}},
		{name: "nil function", ctx: ctx, project: "p", fn: nil, wantErr: []error{ErrNilUpdateFunc}},
		{name: "function fails", ctx: ctx, project: "p", fn: func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
			return nil, []cognition.L1MemoryPatchOp{cognition.AppendOp("never")}, errBoom
		}, wantErr: []error{errBoom}},
		{name: "corrupt stored state", ctx: ctx, project: "corrupt", fn: appendFn("x"), wantErr: []error{ErrCorruptState, cognition.ErrInvalidState}},
		{name: "cancelled context", ctx: cancelled, project: "p", fn: appendFn("x"), wantErr: []error{context.Canceled}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Update(tt.ctx, tt.project, tt.fn)
			for _, want := range tt.wantErr {
				if !errors.Is(err, want) {
					t.Errorf("error %v does not wrap %v", err, want)
				}
			}
			if res.Changed || res.Rev != 0 {
				t.Errorf("result along with an error: %+v", res)
			}
		})
	}
	if rev := kvRevision(t, kv, "p"); rev != 0 {
		t.Errorf("a failed update wrote project p at revision %d", rev)
	}
}

// interfering returns an UpdateFunc that, on each of its first n calls,
// first commits a competing append through other, so that the enclosing
// write loses the compare-and-set, and then asks to append value.
func interfering(t *testing.T, other *Store, project string, n int, value string, calls *int) UpdateFunc {
	t.Helper()
	return func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		*calls++
		if *calls <= n {
			if _, err := other.Update(testCtx(t), project, appendFn("rival")); err != nil {
				return nil, nil, err
			}
		}
		return nil, []cognition.L1MemoryPatchOp{cognition.AppendOp(value)}, nil
	}
}

func TestUpdateRetriesAfterConflict(t *testing.T) {
	tests := []struct {
		name   string
		seeded bool
	}{
		{name: "lost create race", seeded: false},
		{name: "lost update race", seeded: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			s, kv := newStore(t, WithLogger(logger))
			other, err := New(kv)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			ctx := testCtx(t)
			var want []string
			if tt.seeded {
				if _, err := s.Update(ctx, "p", appendFn("seed")); err != nil {
					t.Fatalf("seed: %v", err)
				}
				want = append(want, "seed")
			}
			calls := 0
			res, err := s.Update(ctx, "p", interfering(t, other, "p", 2, "mine", &calls))
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			want = append(want, "rival", "rival", "mine")
			if calls != 3 {
				t.Errorf("update function called %d times, want 3", calls)
			}
			if !slices.Equal(res.State.L1Memory.Entries, want) {
				t.Errorf("entries = %q, want %q", res.State.L1Memory.Entries, want)
			}
			if res.Rev != kvRevision(t, kv, "p") || res.State.Revision != uint64(len(want)) {
				t.Errorf("result rev %d, state revision %d, KV revision %d", res.Rev, res.State.Revision, kvRevision(t, kv, "p"))
			}
			if strings.Count(logs.String(), "conflict") != 2 {
				t.Errorf("want 2 conflict log lines, got:\n%s", logs.String())
			}
		})
	}
}

func TestUpdateGivesUpAfterMaxAttempts(t *testing.T) {
	tests := []struct {
		name     string
		attempts int
	}{
		{name: "single attempt", attempts: 1},
		{name: "three attempts", attempts: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, kv := newStore(t, WithMaxAttempts(tt.attempts))
			other, err := New(kv)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			calls := 0
			_, err = s.Update(testCtx(t), "p", interfering(t, other, "p", 1000, "mine", &calls))
			if !errors.Is(err, ErrConflict) {
				t.Fatalf("error %v, want ErrConflict", err)
			}
			if !errors.Is(err, jetstream.ErrKeyExists) && !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
				t.Errorf("error %v does not wrap the CAS failure", err)
			}
			if calls != tt.attempts {
				t.Errorf("update function called %d times, want %d", calls, tt.attempts)
			}
			st, _, err := s.Get(testCtx(t), "p")
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if slices.Contains(st.L1Memory.Entries, "mine") || len(st.L1Memory.Entries) != tt.attempts {
				t.Errorf("entries = %q", st.L1Memory.Entries)
			}
		})
	}
}

func TestUpdateStopsWhenContextEndsMidUpdate(t *testing.T) {
	s, kv := newStore(t)
	other, err := New(kv)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	calls := 0
	inner := interfering(t, other, "p", 1000, "mine", &calls)
	_, err = s.Update(ctx, "p", func(cur cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		g, m, err := inner(cur)
		if calls == 2 {
			cancel()
		}
		return g, m, err
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if calls != 2 {
		t.Errorf("update function called %d times, want 2", calls)
	}
}
