package rao

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

func TestReplay(t *testing.T) {
	states := counterStates(25)
	for _, every := range []int{0, 1, 4} {
		events := buildHistory(t, "run-1", states, every)
		for upto := uint64(1); upto <= 25; upto++ {
			got, err := Replay(events, upto)
			if err != nil {
				t.Fatalf("every %d: Replay(%d): %v", every, upto, err)
			}
			if !bytes.Equal(got, states[upto-1]) {
				t.Fatalf("every %d: Replay(%d) = %s, want %s", every, upto, got, states[upto-1])
			}
		}
		last, err := Replay(events, 0)
		if err != nil || !bytes.Equal(last, states[24]) {
			t.Fatalf("every %d: Replay(0) = %s, %v", every, last, err)
		}
	}
}

// TestReplayUsesNearestCheckpoint shows Replay starts at the checkpoint: a
// broken delta before it does not matter, one after it does.
func TestReplayUsesNearestCheckpoint(t *testing.T) {
	states := counterStates(25)
	events := buildHistory(t, "run-1", states, 0)
	events[4].Delta = Patch{{Op: OpRemove, Path: "/nope"}}
	if got, err := Replay(events, 15); err != nil || !bytes.Equal(got, states[14]) {
		t.Fatalf("Replay(15) = %s, %v", got, err)
	}
	_, err := Replay(events, 7)
	var re *ReplayError
	if !errors.As(err, &re) || re.Seq != 5 || !errors.Is(err, ErrApply) {
		t.Fatalf("got %v, want a ReplayError for seq 5 wrapping ErrApply", err)
	}
}

func TestReplayCompactedHistory(t *testing.T) {
	states := counterStates(25)
	events := buildHistory(t, "run-1", states, 0)[9:] // starts at the seq 10 checkpoint
	for upto := uint64(10); upto <= 25; upto++ {
		got, err := Replay(events, upto)
		if err != nil || !bytes.Equal(got, states[upto-1]) {
			t.Fatalf("Replay(%d) = %s, %v", upto, got, err)
		}
	}
	all, err := States(events)
	if err != nil || len(all) != 16 || all[0].Seq != 10 {
		t.Fatalf("States = %d states, %v", len(all), err)
	}
}

func TestReplayErrors(t *testing.T) {
	states := counterStates(25)
	events := buildHistory(t, "run-1", states, 0)
	badSnap := append([]Event{}, events...)
	badSnap[9].Snapshot = json.RawMessage(`{`)
	otherRun := append([]Event{}, events[:3]...)
	otherRun[2].RunID = "run-2"
	tests := []struct {
		name    string
		events  []Event
		upto    uint64
		want    error
		wantSeq uint64 // seq carried by a ReplayError, 0 if none expected
	}{
		{name: "no events", events: nil, want: ErrNoEvents},
		{name: "seq before history", events: events[9:], upto: 3, want: ErrNotFound},
		{name: "seq after history", events: events, upto: 26, want: ErrNotFound},
		{name: "no baseline", events: events[10:15], upto: 0, want: ErrNoBaseline},
		{name: "gap", events: append(append([]Event{}, events[:3]...), events[4:]...), want: ErrBrokenChain, wantSeq: 5},
		{name: "reordered", events: []Event{events[0], events[2], events[1]}, want: ErrBrokenChain, wantSeq: 3},
		{name: "other run", events: otherRun, want: ErrBrokenChain, wantSeq: 3},
		{name: "bad snapshot", events: badSnap, upto: 12, want: ErrInvalidJSON, wantSeq: 10},
		{name: "bad delta", events: withDelta(events, 2, Patch{{Op: OpReplace, Path: "/missing", Value: json.RawMessage(`1`)}}), upto: 4, want: ErrApply, wantSeq: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Replay(tc.events, tc.upto)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Replay: got %v, want %v", err, tc.want)
			}
			checkReplayErrorSeq(t, err, tc.wantSeq)
			if tc.upto != 0 {
				return // States has no target
			}
			_, err = States(tc.events)
			if !errors.Is(err, tc.want) {
				t.Fatalf("States: got %v, want %v", err, tc.want)
			}
			checkReplayErrorSeq(t, err, tc.wantSeq)
		})
	}
	t.Run("states bad delta", func(t *testing.T) {
		_, err := States(withDelta(events, 2, Patch{{Op: OpRemove, Path: "/missing"}}))
		checkReplayErrorSeq(t, err, 3)
	})
	t.Run("states bad snapshot", func(t *testing.T) {
		_, err := States(badSnap)
		checkReplayErrorSeq(t, err, 10)
	})
}

// withDelta returns a copy of events with event i's delta replaced.
func withDelta(events []Event, i int, p Patch) []Event {
	out := append([]Event{}, events...)
	out[i].Delta = p
	return out
}

// checkReplayErrorSeq checks that err is a *ReplayError for seq (or no
// ReplayError when seq is 0).
func checkReplayErrorSeq(t *testing.T, err error, seq uint64) {
	t.Helper()
	var re *ReplayError
	got := errors.As(err, &re)
	if seq == 0 {
		if got {
			t.Fatalf("unexpected ReplayError %v", err)
		}
		return
	}
	if !got || re.Seq != seq {
		t.Fatalf("got %v, want a ReplayError for seq %d", err, seq)
	}
	if re.Unwrap() == nil || re.Error() == "" {
		t.Fatal("ReplayError without cause or message")
	}
}

func TestStatesMatchReplay(t *testing.T) {
	states := counterStates(23)
	events := buildHistory(t, "run-1", states, 0)
	all, err := States(events)
	if err != nil {
		t.Fatalf("States: %v", err)
	}
	for i, st := range all {
		if st.Seq != uint64(i+1) || st.ID != events[i].ID || !bytes.Equal(st.Doc, states[i]) {
			t.Fatalf("state %d: %+v", i, st)
		}
	}
}
