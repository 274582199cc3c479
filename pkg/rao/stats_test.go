package rao

import (
	"errors"
	"strings"
	"testing"
)

// TestStatsFootprint checks the storage target on a synthetic 200-event
// coding run: at least 90% smaller than a full snapshot per event.
func TestStatsFootprint(t *testing.T) {
	t.Parallel()
	events := buildHistory(t, "run-1", syntheticRun(t, 200, 1), 0)
	s, err := Stats(events)
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	if s.Events != 200 || s.BytesStored <= 0 || s.BytesFullSnapshots <= s.BytesStored {
		t.Fatalf("implausible figures: %s", s)
	}
	if s.Reduction < 0.90 {
		t.Fatalf("reduction %.1f%% below the 90%% target: %s", 100*s.Reduction, s)
	}
	// The snapshot-history baseline carries the same events around the
	// states, so it is larger than the bare states, which the stored
	// deltas must beat by far.
	if s.BytesFullSnapshots <= s.BytesStates || s.BytesStored >= s.BytesStates {
		t.Fatalf("baseline %d, bare states %d, stored %d", s.BytesFullSnapshots, s.BytesStates, s.BytesStored)
	}
	if !strings.Contains(s.String(), "reduction") {
		t.Fatalf("String: %s", s)
	}
}

func TestStatsEdgeCases(t *testing.T) {
	events := buildHistory(t, "run-1", counterStates(12), 0)
	t.Run("empty", func(t *testing.T) {
		s, err := Stats(nil)
		if err != nil || s != (Stat{}) {
			t.Fatalf("Stats(nil) = %+v, %v", s, err)
		}
	})
	t.Run("invalid event", func(t *testing.T) {
		bad := append([]Event{}, events...)
		bad[3].Kind = "x"
		if _, err := Stats(bad); !errors.Is(err, ErrInvalidEvent) {
			t.Fatalf("got %v, want ErrInvalidEvent", err)
		}
	})
	t.Run("broken chain", func(t *testing.T) {
		if _, err := Stats([]Event{events[0], events[2]}); !errors.Is(err, ErrBrokenChain) {
			t.Fatalf("got %v, want ErrBrokenChain", err)
		}
	})
}
