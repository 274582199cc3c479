package rao

import "fmt"

// Stat measures a history's storage footprint.
type Stat struct {
	// Events is the number of events.
	Events int
	// BytesStored is the total size of the events as stored (Encode).
	BytesStored int64
	// BytesFullSnapshots is what the same history would take as a
	// snapshot history: the same events, with the same ids, timestamps,
	// tags and hash chain, each carrying the full canonical state
	// (uncompressed) instead of a delta.
	BytesFullSnapshots int64
	// BytesStates is the bare total of the canonical states, without any
	// event around them: a lower bound no history can reach, reported for
	// transparency.
	BytesStates int64
	// Reduction is 1 - BytesStored/BytesFullSnapshots (0 when there is
	// nothing to compare).
	Reduction float64
}

// String renders the figures on one line.
func (s Stat) String() string {
	return fmt.Sprintf("%d events, %d bytes stored, %d bytes as full snapshots (%d bytes of bare states), %.1f%% reduction",
		s.Events, s.BytesStored, s.BytesFullSnapshots, s.BytesStates, 100*s.Reduction)
}

// Stats measures events (one run's history, as for States). Errors come
// from Encode (invalid events) and States (histories that do not replay).
func Stats(events []Event) (Stat, error) {
	return stats(events, Encode)
}

// stats is Stats with the encoder as a parameter, to compare encodings.
func stats(events []Event, enc func(Event) ([]byte, error)) (Stat, error) {
	s := Stat{Events: len(events)}
	if len(events) == 0 {
		return s, nil
	}
	for _, e := range events {
		b, err := enc(e)
		if err != nil {
			return Stat{}, fmt.Errorf("could not measure history: %w", err)
		}
		s.BytesStored += int64(len(b))
	}
	states, err := States(events)
	if err != nil {
		return Stat{}, fmt.Errorf("could not measure history: %w", err)
	}
	for i, st := range states {
		s.BytesStates += int64(len(st.Doc))
		full := events[i]
		full.Delta, full.Checkpoint, full.Snapshot = Patch{}, true, st.Doc
		b, err := encode(full, false)
		if err != nil {
			return Stat{}, fmt.Errorf("could not measure history: %w", err)
		}
		s.BytesFullSnapshots += int64(len(b))
	}
	if s.BytesFullSnapshots > 0 {
		s.Reduction = 1 - float64(s.BytesStored)/float64(s.BytesFullSnapshots)
	}
	return s, nil
}
