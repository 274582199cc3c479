package rao

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestVerifyIntact(t *testing.T) {
	events := buildHistory(t, "run-1", counterStates(35), 0)
	r := Verify(events)
	if !r.OK() || len(r.Findings) != 0 {
		t.Fatalf("intact history: %s", r)
	}
	head, _ := Hash(events[34])
	if r.RunID != "run-1" || r.Events != 35 || r.FirstSeq != 1 || r.LastSeq != 35 || r.Head != head {
		t.Fatalf("report header: %+v", r)
	}
	if !strings.Contains(r.String(), "OK") {
		t.Fatalf("String: %s", r)
	}
	if e := Verify(nil); !e.OK() || e.Events != 0 {
		t.Fatalf("empty history: %+v", e)
	}
}

// forge returns a copy of an event whose links (base, prev_hash) point at
// prev, as a forger would build it.
func forge(t *testing.T, prev Event, seq uint64, delta Patch) Event {
	t.Helper()
	h, err := Hash(prev)
	if err != nil {
		t.Fatalf("Hash: %v", err)
	}
	return Event{ID: EventID(prev.RunID, seq), RunID: prev.RunID, Seq: seq, TS: prev.TS, Kind: KindOverride,
		Base: prev.ID, Delta: delta, Meta: Meta{Schema: SchemaV2}, PrevHash: h}
}

func TestVerifyTampering(t *testing.T) {
	orig := buildHistory(t, "run-1", counterStates(35), 0)
	cp := func() []Event {
		out := make([]Event, len(orig))
		copy(out, orig)
		return out
	}
	type want struct {
		seq  uint64
		kind BreakKind
	}
	tests := []struct {
		name   string
		tamper func() []Event
		want   []want
		ok     bool
	}{
		{
			name: "modify delta",
			tamper: func() []Event {
				e := cp()
				e[14].Delta = Patch{{Op: OpReplace, Path: "/status", Value: json.RawMessage(`"forged"`)}}
				return e
			},
			want: []want{{16, BreakHash}, {16, BreakDelta}},
		},
		{
			name: "add an operation to a delta",
			tamper: func() []Event {
				e := cp()
				e[17].Delta = append(append(Patch{}, e[17].Delta...), Op{Op: OpAdd, Path: "/approved", Value: json.RawMessage(`true`)})
				return e
			},
			want: []want{{19, BreakHash}, {20, BreakSnapshot}},
		},
		{
			name: "modify snapshot",
			tamper: func() []Event {
				e := cp()
				e[19].Snapshot = json.RawMessage(`{"calls":[],"n":20,"status":"s2"}`)
				return e
			},
			want: []want{{20, BreakSnapshot}, {21, BreakHash}},
		},
		{
			name:   "remove middle event",
			tamper: func() []Event { e := cp(); return append(e[:14], e[15:]...) },
			want:   []want{{16, BreakGap}, {16, BreakBase}, {16, BreakHash}},
		},
		{
			name:   "remove several events",
			tamper: func() []Event { e := cp(); return append(e[:11], e[17:]...) },
			want:   []want{{18, BreakGap}, {18, BreakHash}},
		},
		{
			name:   "reorder two events",
			tamper: func() []Event { e := cp(); e[14], e[15] = e[15], e[14]; return e },
			want:   []want{{15, BreakReordered}, {16, BreakBase}, {16, BreakHash}, {15, BreakHash}},
		},
		{
			name: "insert forged event",
			tamper: func() []Event {
				e := cp()
				f := forge(t, e[14], 16, Patch{{Op: OpReplace, Path: "/status", Value: json.RawMessage(`"approved"`)}})
				return append(e[:15], append([]Event{f}, e[15:]...)...)
			},
			want: []want{{16, BreakDuplicate}, {16, BreakHash}},
		},
		{
			name: "append forged event with a new seq in the middle",
			tamper: func() []Event {
				e := cp()
				f := forge(t, e[14], 36, Patch{})
				return append(e[:15], append([]Event{f}, e[15:]...)...)
			},
			want: []want{{16, BreakReordered}, {16, BreakBase}, {16, BreakHash}},
		},
		{
			name:   "change meta",
			tamper: func() []Event { e := cp(); e[14].Meta.PolicyHash = "other-policy"; return e },
			want:   []want{{16, BreakHash}},
		},
		{
			name:   "change summary",
			tamper: func() []Event { e := cp(); e[3].Summary = "nothing happened"; return e },
			want:   []want{{5, BreakHash}},
		},
		{
			name: "delta that does not apply",
			tamper: func() []Event {
				e := cp()
				e[14].Delta = Patch{{Op: OpRemove, Path: "/missing"}}
				return e
			},
			want: []want{{15, BreakDelta}, {16, BreakHash}},
		},
		{
			name:   "compaction boundary is informational",
			tamper: func() []Event { return cp()[9:] },
			want:   []want{{10, BreakCompacted}},
			ok:     true,
		},
		{
			name:   "truncated at a non-checkpoint",
			tamper: func() []Event { return cp()[10:] },
			want:   []want{{11, BreakMissingBaseline}},
		},
		{
			name:   "event of another run",
			tamper: func() []Event { e := cp(); e[14].RunID = "run-2"; return e },
			want:   []want{{15, BreakRunMismatch}, {15, BreakInvalidEvent}, {16, BreakHash}},
		},
		{
			name:   "invalid event",
			tamper: func() []Event { e := cp(); e[14].Kind = "note"; return e },
			want:   []want{{15, BreakInvalidEvent}, {16, BreakHash}},
		},
		{
			name: "first event with links",
			tamper: func() []Event {
				e := cp()
				e[0].Base, e[0].PrevHash = "run-1.0", strings.Repeat("0", 64)
				return e
			},
			want: []want{{1, BreakBase}, {1, BreakHash}, {2, BreakHash}},
		},
		{
			name:   "unhashable event",
			tamper: func() []Event { e := cp(); e[19].Snapshot = json.RawMessage(`{`); return e },
			want:   []want{{20, BreakInvalidEvent}, {20, BreakSnapshot}, {21, BreakHash}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Verify(tc.tamper())
			if r.OK() != tc.ok {
				t.Fatalf("OK() = %v, want %v:\n%s", r.OK(), tc.ok, r)
			}
			for _, w := range tc.want {
				if !r.Has(w.seq, w.kind) {
					t.Fatalf("missing %s at seq %d:\n%s", w.kind, w.seq, r)
				}
			}
			for _, f := range r.Findings {
				if f.Detail == "" || !strings.Contains(f.String(), string(f.Kind)) {
					t.Fatalf("finding without detail: %+v", f)
				}
			}
		})
	}
}

// TestVerifyHead documents the limit of a hash chain: a change to the
// newest event leaves the chain intact, but changes Head, which callers
// compare with a copy kept elsewhere.
func TestVerifyHead(t *testing.T) {
	events := buildHistory(t, "run-1", counterStates(12), 0)
	before := Verify(events).Head
	events[11].Summary = "rewritten"
	after := Verify(events)
	if !after.OK() {
		t.Fatalf("unexpected break: %s", after)
	}
	if after.Head == before {
		t.Fatal("Head did not change with the newest event")
	}
}

// TestVerifyResyncsAtCheckpoint checks that after a gap the rebuilt state
// resumes at the next checkpoint instead of reporting every later event.
func TestVerifyResyncsAtCheckpoint(t *testing.T) {
	events := buildHistory(t, "run-1", counterStates(35), 0)
	events = append(events[:14], events[15:]...)
	r := Verify(events)
	for _, f := range r.Findings {
		if f.Kind == BreakSnapshot || f.Kind == BreakDelta {
			t.Fatalf("state checks should wait for the next checkpoint after a gap: %s", r)
		}
	}
}

func TestReportHelpers(t *testing.T) {
	r := Report{RunID: "run-1", Events: 3, FirstSeq: 10, LastSeq: 12, Head: "h", Findings: []Finding{
		{Seq: 10, Kind: BreakCompacted, Detail: "history compacted before seq 10"},
		{Seq: 12, Kind: BreakHash, Detail: "prev_hash does not match"},
	}}
	if r.OK() {
		t.Fatal("report with a hash break is OK")
	}
	if b := r.Breaks(); len(b) != 1 || b[0].Kind != BreakHash {
		t.Fatalf("Breaks = %+v", b)
	}
	if !r.Findings[0].Informational() || r.Findings[1].Informational() {
		t.Fatal("Informational is wrong")
	}
	s := r.String()
	for _, want := range []string{"run run-1: 3 events (seq 10..12), head h", "seq 10: compacted:", "seq 12: hash_mismatch:"} {
		if !strings.Contains(s, want) {
			t.Fatalf("String misses %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "OK") {
		t.Fatalf("String claims OK:\n%s", s)
	}
	info := Report{Findings: r.Findings[:1]}
	if !info.OK() || len(info.Breaks()) != 0 {
		t.Fatal("informational findings must not break a report")
	}
}
