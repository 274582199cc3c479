package pmstate

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/nats-io/nats.go/jetstream"
)

func TestNewValidatesOptions(t *testing.T) {
	_, kv := newBucket(t)
	tests := []struct {
		name      string
		kv        jetstream.KeyValue
		opts      []Option
		wantCount int
	}{
		{name: "defaults", kv: kv},
		{name: "all options", kv: kv, opts: []Option{WithMaxAttempts(1), WithMaxL1Entries(10), WithBackoff(time.Millisecond, time.Millisecond), WithLogger(slog.New(slog.DiscardHandler))}},
		{name: "nil logger", kv: kv, opts: []Option{WithLogger(nil)}, wantCount: 1},
		{name: "nil KeyValue", kv: nil, wantCount: 1},
		{name: "zero attempts", kv: kv, opts: []Option{WithMaxAttempts(0)}, wantCount: 1},
		{name: "negative L1 bound", kv: kv, opts: []Option{WithMaxL1Entries(-1)}, wantCount: 1},
		{name: "zero initial backoff", kv: kv, opts: []Option{WithBackoff(0, time.Second)}, wantCount: 1},
		{name: "max backoff below initial", kv: kv, opts: []Option{WithBackoff(time.Second, time.Millisecond)}, wantCount: 1},
		{name: "every problem reported", kv: nil, opts: []Option{WithMaxAttempts(-3), WithMaxL1Entries(-1), WithLogger(nil)}, wantCount: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.kv, tt.opts...)
			if tt.wantCount == 0 {
				if err != nil || s == nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidConfig) || s != nil {
				t.Fatalf("New = %v, %v; want ErrInvalidConfig", s, err)
			}
			if got := len(err.(interface{ Unwrap() []error }).Unwrap()); got != tt.wantCount {
				t.Errorf("%d problems reported, want %d: %v", got, tt.wantCount, err)
			}
		})
	}
}

func TestGetMissingProjectIsDefaultState(t *testing.T) {
	s, _ := newStore(t)
	st, rev, err := s.Get(testCtx(t), "fresh")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if rev != 0 || !st.Equal(cognition.NewState()) {
		t.Errorf("Get = %+v at %d, want the default state at 0", st, rev)
	}
}

func TestGetReturnsStoredStateAndRevision(t *testing.T) {
	s, kv := newStore(t)
	ctx := testCtx(t)
	want := cognition.NewState()
	want.Revision = 9
	want.L1Memory.Entries = []string{"stored"}
	data, err := cognition.EncodeState(want)
	if err != nil {
		t.Fatalf("EncodeState: %v", err)
	}
	// Another project's write moves the stream sequence so revisions differ
	// from 1.
	if _, err := kv.Put(ctx, mustKey(t, "other"), data); err != nil {
		t.Fatalf("Put: %v", err)
	}
	putRev, err := kv.Put(ctx, mustKey(t, "p"), data)
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	st, rev, err := s.Get(ctx, "p")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if rev != putRev || rev != 2 || !st.Equal(want) {
		t.Errorf("Get = %+v at %d, want %+v at %d", st, rev, want, putRev)
	}
}

func TestGetErrors(t *testing.T) {
	s, kv := newStore(t)
	ctx := testCtx(t)
	put := func(project, value string) {
		t.Helper()
		if _, err := kv.Put(ctx, mustKey(t, project), []byte(value)); err != nil {
			t.Fatalf("Put: %v", err)
		}
	}
	put("garbage", "not json")
	put("invalid", `{"revision":1,"goal_tree":{"user_partition":{"node_id":"root","summary":"s","weight":0}},"l1_memory":{}}`)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		project string
		wantErr []error
	}{
		{name: "empty project id", ctx: ctx, project: "", wantErr: []error{ErrInvalidProject}},
		{name: "undecodable entry", ctx: ctx, project: "garbage", wantErr: []error{ErrCorruptState, cognition.ErrInvalidState}},
		{name: "invalid state", ctx: ctx, project: "invalid", wantErr: []error{ErrCorruptState, cognition.ErrInvalidState}},
		{name: "cancelled context", ctx: cancelled, project: "garbage", wantErr: []error{context.Canceled}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := s.Get(tt.ctx, tt.project)
			for _, want := range tt.wantErr {
				if !errors.Is(err, want) {
					t.Errorf("error %v does not wrap %v", err, want)
				}
			}
		})
	}
}

func TestGetAfterDeleteIsDefaultStateAndUpdateRecreates(t *testing.T) {
	s, kv := newStore(t)
	ctx := testCtx(t)
	appendEntry := func(v string) UpdateFunc {
		return func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
			return nil, []cognition.L1MemoryPatchOp{cognition.AppendOp(v)}, nil
		}
	}
	if _, err := s.Update(ctx, "p", appendEntry("before")); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if err := kv.Delete(ctx, mustKey(t, "p")); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	st, rev, err := s.Get(ctx, "p")
	if err != nil || rev != 0 || !st.Equal(cognition.NewState()) {
		t.Fatalf("Get after delete = %+v at %d, %v", st, rev, err)
	}
	res, err := s.Update(ctx, "p", appendEntry("after"))
	if err != nil {
		t.Fatalf("Update after delete: %v", err)
	}
	if !res.Changed || res.Rev != 3 || len(res.State.L1Memory.Entries) != 1 || res.State.L1Memory.Entries[0] != "after" {
		t.Errorf("Update after delete = %+v", res)
	}
}
