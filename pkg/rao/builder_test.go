package rao

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// counterStates returns n small canonical states: a counter, a growing
// list that is trimmed every 7th step and kept short, and a status.
func counterStates(n int) [][]byte {
	out := make([][]byte, 0, n)
	var calls []string
	for i := 1; i <= n; i++ {
		calls = append(calls, fmt.Sprintf(`{"i":%d,"tool":"write_file"}`, i))
		if i%7 == 0 || len(calls) > 12 {
			calls = calls[2:]
		}
		out = append(out, []byte(fmt.Sprintf(`{"calls":[%s],"n":%d,"status":"s%d"}`, strings.Join(calls, ","), i, i%3)))
	}
	return out
}

func TestBuilderNext(t *testing.T) {
	b := Builder{RunID: "run-1"}
	first, err := b.Next(nil, nil, []byte(`{"status":"new"}`), KindRun, "evt-1", "created", Meta{}, time.Date(2025, 1, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600)))
	if err != nil {
		t.Fatalf("first: %v", err)
	}
	if first.ID != "run-1.1" || first.Seq != 1 || first.Base != "" || first.PrevHash != "" || first.Checkpoint {
		t.Fatalf("first event: %+v", first)
	}
	if first.Meta.Schema != SchemaV2 {
		t.Fatalf("schema not defaulted: %q", first.Meta.Schema)
	}
	if first.TS.Location() != time.UTC || first.TS.Hour() != 11 {
		t.Fatalf("ts not stored in UTC: %v", first.TS)
	}
	if got := string(mustMarshal(t, first.Delta)); got != `[{"op":"add","path":"/status","value":"new"}]` {
		t.Fatalf("first delta %s", got)
	}
	second, err := b.Next(&first, []byte(`{"status":"new"}`), []byte(`{"status":"new"}`), KindAudit, "note-1", "auditor note", Meta{}, time.Now())
	if err != nil {
		t.Fatalf("second: %v", err)
	}
	h, _ := Hash(first)
	if second.Seq != 2 || second.Base != "run-1.1" || second.PrevHash != h || len(second.Delta) != 0 {
		t.Fatalf("second event: %+v", second)
	}
	if got := string(mustMarshal(t, second.Delta)); got != `[]` {
		t.Fatalf("unchanged state must give an empty delta, got %s", got)
	}
}

func TestBuilderCheckpointPlacement(t *testing.T) {
	states := counterStates(35)
	tests := []struct {
		name  string
		every int
		want  []uint64
	}{
		{name: "default every 10th", every: 0, want: []uint64{10, 20, 30}},
		{name: "every 7th", every: 7, want: []uint64{7, 14, 21, 28, 35}},
		{name: "every event", every: 1, want: seqRange(1, 35)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			events := buildHistory(t, "run-1", states, tc.every)
			var got []uint64
			for i, e := range events {
				if e.Checkpoint {
					got = append(got, e.Seq)
					if !bytes.Equal(e.Snapshot, states[i]) {
						t.Fatalf("snapshot of seq %d is not the state", e.Seq)
					}
					if len(e.Delta) == 0 {
						t.Fatalf("checkpoint seq %d lost its delta", e.Seq)
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("checkpoints at %v, want %v", got, tc.want)
			}
		})
	}
}

// seqRange returns from..to inclusive.
func seqRange(from, to uint64) []uint64 {
	var out []uint64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

func TestBuilderErrors(t *testing.T) {
	states := counterStates(10)
	events := buildHistory(t, "run-1", states, 0)
	cp := events[9] // seq 10, a checkpoint
	tests := []struct {
		name      string
		b         Builder
		prev      *Event
		prevState string
		next      string
		kind      Kind
		meta      Meta
		ts        time.Time
		want      error
	}{
		{name: "negative interval", b: Builder{RunID: "r", CheckpointEvery: -1}, next: `{}`, want: ErrInvalidConfig},
		{name: "first without run id", b: Builder{}, next: `{}`, want: ErrInvalidConfig},
		{name: "other run", b: Builder{RunID: "run-2"}, prev: &events[0], prevState: string(states[0]), next: `{}`, want: ErrInvalidConfig},
		{name: "scalar next", b: Builder{RunID: "r"}, next: `"x"`, want: ErrInvalidState},
		{name: "next not JSON", b: Builder{RunID: "r"}, next: `{`, want: ErrInvalidJSON},
		{name: "first not from empty", b: Builder{RunID: "r"}, prevState: `{"a":1}`, next: `{}`, want: ErrStateMismatch},
		{name: "prev state not JSON", b: Builder{}, prev: &events[0], prevState: `{`, next: `{}`, want: ErrInvalidJSON},
		{name: "prev state differs from checkpoint", b: Builder{}, prev: &cp, prevState: `{"n":0}`, next: `{}`, want: ErrStateMismatch},
		{name: "bad kind", b: Builder{RunID: "r"}, next: `{}`, kind: "note", want: ErrInvalidEvent},
		{name: "bad schema", b: Builder{RunID: "r"}, next: `{}`, meta: Meta{Schema: "rao.v1"}, want: ErrInvalidEvent},
		{name: "zero time", b: Builder{RunID: "r"}, next: `{}`, ts: time.Time{}, want: ErrInvalidEvent},
		{name: "bad run id", b: Builder{RunID: "a.b"}, next: `{}`, want: ErrInvalidEvent},
		{name: "unhashable prev", b: Builder{}, prev: &Event{ID: "r.1", RunID: "r", Seq: 1, Snapshot: json.RawMessage(`{`)}, prevState: `{}`, next: `{}`, want: ErrInvalidJSON},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kind := tc.kind
			if kind == "" {
				kind = KindRun
			}
			ts := tc.ts
			if ts.IsZero() && tc.name != "zero time" {
				ts = testTime
			}
			var prevState []byte
			if tc.prevState != "" {
				prevState = []byte(tc.prevState)
			}
			_, err := tc.b.Next(tc.prev, prevState, []byte(tc.next), kind, "c", "s", tc.meta, ts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestChainResume(t *testing.T) {
	states := counterStates(23)
	all := buildHistory(t, "run-1", states, 0)
	c, err := Resume(Builder{RunID: "run-1"}, all[:15])
	if err != nil {
		t.Fatalf("Resume: %v", err)
	}
	if c.Last().Seq != 15 || !bytes.Equal(c.State(), states[14]) {
		t.Fatalf("resumed at seq %d with state %s", c.Last().Seq, c.State())
	}
	for i := 15; i < len(states); i++ {
		ev, err := c.Next(states[i], KindRun, fmt.Sprintf("evt-%d", i+1), fmt.Sprintf("step %d", i+1),
			Meta{PolicyHash: "p1", ContractHash: "c1", PMRev: "7"}, testTime.Add(time.Duration(i)*time.Second))
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		h1, _ := Hash(ev)
		h2, _ := Hash(all[i])
		if h1 != h2 {
			t.Fatalf("resumed event seq %d differs from the uninterrupted one", ev.Seq)
		}
	}
	t.Run("empty history", func(t *testing.T) {
		c, err := Resume(Builder{RunID: "run-9"}, nil)
		if err != nil || c.Last() != nil || c.State() != nil {
			t.Fatalf("Resume(nil) = %+v, %v", c, err)
		}
		if _, err := c.Next([]byte(`{}`), KindRun, "", "", Meta{}, testTime); err != nil {
			t.Fatalf("first Next: %v", err)
		}
	})
	t.Run("broken history", func(t *testing.T) {
		if _, err := Resume(Builder{}, []Event{all[0], all[2]}); !errors.Is(err, ErrBrokenChain) {
			t.Fatalf("got %v, want ErrBrokenChain", err)
		}
	})
	t.Run("failed next keeps position", func(t *testing.T) {
		c, err := Resume(Builder{}, all[:3])
		if err != nil {
			t.Fatalf("Resume: %v", err)
		}
		if _, err := c.Next([]byte(`1`), KindRun, "", "", Meta{}, testTime); !errors.Is(err, ErrInvalidState) {
			t.Fatalf("got %v, want ErrInvalidState", err)
		}
		if c.Last().Seq != 3 {
			t.Fatalf("chain advanced to %d after a failure", c.Last().Seq)
		}
	})
}
