package rao

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestCompactionPoint(t *testing.T) {
	states := counterStates(250)
	events := buildHistory(t, "run-1", states, 0)
	tests := []struct {
		name   string
		events []Event
		limit  int
		want   uint64
		ok     bool
	}{
		{name: "under default cap", events: events[:200], limit: 0, ok: false},
		{name: "one over default cap", events: events[:201], limit: 0, want: 10, ok: true},
		{name: "250 events default cap", events: events, limit: 0, want: 60, ok: true},
		{name: "cap 25", events: events[:100], limit: 25, want: 80, ok: true},
		{name: "cap equal to checkpoint interval", events: events[:35], limit: 10, want: 30, ok: true},
		{name: "cap below checkpoint interval", events: events[:35], limit: 5, ok: false},
		{name: "exact checkpoint boundary", events: events[:39], limit: 30, want: 10, ok: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := CompactionPoint(tc.events, tc.limit)
			if ok != tc.ok || got != tc.want {
				t.Fatalf("CompactionPoint = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
			if !ok {
				return
			}
			limit := tc.limit
			if limit <= 0 {
				limit = DefaultCap
			}
			kept := tc.events[got-tc.events[0].Seq:]
			if !kept[0].Checkpoint || len(kept) > limit {
				t.Fatalf("kept %d events starting at checkpoint=%v", len(kept), kept[0].Checkpoint)
			}
			if r := Verify(kept); !r.OK() || !r.Has(got, BreakCompacted) {
				t.Fatalf("kept history does not verify as compacted: %s", r)
			}
			if st, err := Replay(kept, 0); err != nil || string(st) != string(states[len(tc.events)-1]) {
				t.Fatalf("kept history does not replay: %v", err)
			}
		})
	}
}

// TestCompactionRepeated compacts after every append, as the recorder
// does, and checks the invariants each time.
func TestCompactionRepeated(t *testing.T) {
	states := counterStates(120)
	events := buildHistory(t, "run-1", states, 0)
	const limit = 30
	var kept []Event
	for _, e := range events {
		kept = append(kept, e)
		if first, ok := CompactionPoint(kept, limit); ok {
			kept = kept[first-kept[0].Seq:]
		}
		if len(kept) > limit {
			t.Fatalf("history grew to %d events", len(kept))
		}
		if kept[0].Seq != 1 && !kept[0].Checkpoint {
			t.Fatalf("history starts at seq %d, not a checkpoint", kept[0].Seq)
		}
	}
	if r := Verify(kept); !r.OK() {
		t.Fatalf("compacted history: %s", r)
	}
}

func TestRetention(t *testing.T) {
	states := counterStates(60)
	events := buildHistory(t, "run-1", states, 0) // event i at testTime + i s
	now := testTime.Add(60 * time.Second)
	var sizes []int
	for _, e := range events {
		n, err := EncodedSize(e)
		if err != nil {
			t.Fatalf("EncodedSize: %v", err)
		}
		sizes = append(sizes, n)
	}
	tail := func(from int) int64 { // bytes of events[from:]
		var s int64
		for _, n := range sizes[from:] {
			s += int64(n)
		}
		return s
	}
	tests := []struct {
		name string
		r    Retention
		want uint64
		ok   bool
	}{
		{name: "no limits", r: Retention{}, ok: false},
		{name: "max events", r: Retention{MaxEvents: 35}, want: 30, ok: true},
		{name: "max age", r: Retention{MaxAge: 25 * time.Second}, want: 40, ok: true},
		{name: "max age keeps all", r: Retention{MaxAge: time.Hour}, ok: false},
		{name: "max bytes exact", r: Retention{MaxBytes: tail(19)}, want: 20, ok: true},
		{name: "max bytes one short", r: Retention{MaxBytes: tail(19) - 1}, want: 30, ok: true},
		{name: "strictest limit wins", r: Retention{MaxEvents: 50, MaxAge: 15 * time.Second}, want: 50, ok: true},
		{name: "newest checkpoint alone", r: Retention{MaxAge: 5 * time.Second}, want: 60, ok: true},
		{name: "no checkpoint satisfies", r: Retention{MaxAge: 500 * time.Millisecond}, ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := tc.r.CompactionPoint(events, now)
			if err != nil {
				t.Fatalf("CompactionPoint: %v", err)
			}
			if got != tc.want || ok != tc.ok {
				t.Fatalf("got %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
	t.Run("invalid", func(t *testing.T) {
		for _, r := range []Retention{{MaxEvents: -1}, {MaxAge: -time.Second}, {MaxBytes: -1}} {
			if _, _, err := r.CompactionPoint(events, now); !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("%+v: got %v, want ErrInvalidConfig", r, err)
			}
		}
	})
	t.Run("unencodable event", func(t *testing.T) {
		bad := append([]Event{}, events...)
		bad[59].Meta.Schema = "x"
		if _, _, err := (Retention{MaxBytes: 10}).CompactionPoint(bad, now); !errors.Is(err, ErrInvalidEvent) {
			t.Fatalf("got %v, want ErrInvalidEvent", err)
		}
	})
	t.Run("encoded size of invalid event", func(t *testing.T) {
		e := events[0]
		e.Delta = Patch{{Op: OpAdd, Path: "/x", Value: json.RawMessage(`{`)}}
		if _, err := EncodedSize(e); !errors.Is(err, ErrInvalidEvent) {
			t.Fatalf("got %v, want ErrInvalidEvent", err)
		}
	})
}
