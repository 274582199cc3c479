package rao

import (
	"fmt"
)

// State is the document after one event.
type State struct {
	// Seq is the event's sequence number.
	Seq uint64
	// ID is the event's ID.
	ID string
	// Doc is the canonical state after the event.
	Doc []byte
}

// checkRun returns a ReplayError wrapping ErrBrokenChain unless events are
// of one run with contiguous increasing seq numbers.
func checkRun(events []Event) error {
	for i := 1; i < len(events); i++ {
		e, p := events[i], events[i-1]
		if e.RunID != p.RunID {
			return &ReplayError{Seq: e.Seq, Err: fmt.Errorf("%w: run %q follows run %q", ErrBrokenChain, e.RunID, p.RunID)}
		}
		if e.Seq != p.Seq+1 {
			return &ReplayError{Seq: e.Seq, Err: fmt.Errorf("%w: seq %d follows seq %d", ErrBrokenChain, e.Seq, p.Seq)}
		}
	}
	return nil
}

// snapshotState returns the canonical snapshot of a checkpoint.
func snapshotState(e Event) ([]byte, error) {
	st, err := CanonicalizeJSON(e.Snapshot)
	if err != nil {
		return nil, &ReplayError{Seq: e.Seq, Err: fmt.Errorf("snapshot: %w", err)}
	}
	return st, nil
}

// applyEvent applies e's delta to state (compact JSON, see applyCompact).
func applyEvent(state []byte, e Event) ([]byte, error) {
	st, err := applyCompact(state, e.Delta)
	if err != nil {
		return nil, &ReplayError{Seq: e.Seq, Err: err}
	}
	return st, nil
}

// canonicalState canonicalizes the state after event seq.
func canonicalState(state []byte, seq uint64) ([]byte, error) {
	c, err := canonicalResult(state)
	if err != nil {
		return nil, &ReplayError{Seq: seq, Err: err}
	}
	return c, nil
}

// Replay returns the canonical state after the event with seq upto (0 =
// the last event). It starts from the nearest checkpoint at or before the
// target, or from the empty baseline {} when there is none and the history
// starts at seq 1, and applies the deltas after it in order.
//
// events must be one run's contiguous, increasing history (as loaded), or
// the error is a *ReplayError wrapping ErrBrokenChain. Other errors:
// ErrNoEvents, ErrNotFound (upto not in events), ErrNoBaseline, and a
// *ReplayError wrapping ErrApply with the seq of a delta that does not
// apply.
func Replay(events []Event, upto uint64) ([]byte, error) {
	if len(events) == 0 {
		return nil, ErrNoEvents
	}
	if err := checkRun(events); err != nil {
		return nil, err
	}
	target := len(events) - 1
	if upto != 0 {
		first := events[0].Seq
		if upto < first || upto-first >= uint64(len(events)) {
			return nil, fmt.Errorf("%w: seq %d (history holds %d..%d)", ErrNotFound, upto, first, events[len(events)-1].Seq)
		}
		target = int(upto - first)
	}
	start := -1
	for i := target; i >= 0; i-- {
		if events[i].Checkpoint {
			start = i
			break
		}
	}
	var state []byte
	switch {
	case start >= 0:
		st, err := snapshotState(events[start])
		if err != nil {
			return nil, err
		}
		state = st
	case events[0].Seq == 1:
		state = []byte(emptyState)
	default:
		return nil, fmt.Errorf("%w: history starts at seq %d without a checkpoint before seq %d", ErrNoBaseline, events[0].Seq, events[target].Seq)
	}
	for i := start + 1; i <= target; i++ {
		st, err := applyEvent(state, events[i])
		if err != nil {
			return nil, err
		}
		state = st
	}
	if start == target {
		return state, nil
	}
	return canonicalState(state, events[target].Seq)
}

// States returns the state after every event, for timelines. A checkpoint's
// state is its snapshot, so States(events)[i].Doc equals
// Replay(events, events[i].Seq). Errors are those of Replay.
func States(events []Event) ([]State, error) {
	if len(events) == 0 {
		return nil, ErrNoEvents
	}
	if err := checkRun(events); err != nil {
		return nil, err
	}
	var state []byte
	switch {
	case events[0].Checkpoint:
	case events[0].Seq == 1:
		state = []byte(emptyState)
	default:
		return nil, fmt.Errorf("%w: history starts at seq %d, which is not a checkpoint", ErrNoBaseline, events[0].Seq)
	}
	out := make([]State, 0, len(events))
	for _, e := range events {
		var err error
		if e.Checkpoint {
			state, err = snapshotState(e)
		} else if state, err = applyEvent(state, e); err == nil {
			state, err = canonicalState(state, e.Seq)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, State{Seq: e.Seq, ID: e.ID, Doc: state})
	}
	return out, nil
}
