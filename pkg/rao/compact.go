package rao

import (
	"fmt"
	"time"
)

// DefaultCap is the default maximum number of events kept per run.
const DefaultCap = 200

// CompactionPoint tells where to cut a history that holds more than limit
// events (limit ≤ 0 means DefaultCap): firstKeptSeq is the seq of the oldest
// event to keep, always a checkpoint, chosen as the earliest checkpoint
// that leaves at most limit events, so the kept history replays on its own.
// ok is false when nothing needs to be cut or when no checkpoint lies
// within the newest limit events (choose limit ≥ the checkpoint interval).
func CompactionPoint(events []Event, limit int) (firstKeptSeq uint64, ok bool) {
	if limit <= 0 {
		limit = DefaultCap
	}
	if len(events) <= limit {
		return 0, false
	}
	return cutAt(events, len(events)-limit)
}

// cutAt returns the seq of the first checkpoint at index ≥ lo (lo > 0).
func cutAt(events []Event, lo int) (uint64, bool) {
	for i := max(lo, 1); i < len(events); i++ {
		if events[i].Checkpoint {
			return events[i].Seq, true
		}
	}
	return 0, false
}

// Retention limits what a run's history keeps. Zero fields are unlimited.
type Retention struct {
	// MaxEvents caps the number of events.
	MaxEvents int
	// MaxAge drops events older than now-MaxAge.
	MaxAge time.Duration
	// MaxBytes caps the encoded size (see Encode) of the kept events.
	MaxBytes int64
}

// Validate returns an error wrapping ErrInvalidConfig for negative limits.
func (r Retention) Validate() error {
	if r.MaxEvents < 0 || r.MaxAge < 0 || r.MaxBytes < 0 {
		return fmt.Errorf("%w: retention limits must not be negative: %+v", ErrInvalidConfig, r)
	}
	return nil
}

// CompactionPoint applies every limit of r to events (oldest first) at
// time now and returns the seq of the oldest event to keep: the earliest
// checkpoint such that the events from it on satisfy all limits. ok is
// false when every event may stay, or when no checkpoint satisfies the
// limits (then nothing should be cut: the kept history must start with a
// full snapshot). Errors wrap ErrInvalidConfig for a bad r, or come from
// Encode when MaxBytes is set and an event is invalid.
func (r Retention) CompactionPoint(events []Event, now time.Time) (firstKeptSeq uint64, ok bool, err error) {
	if err := r.Validate(); err != nil {
		return 0, false, err
	}
	lo := 0
	if r.MaxEvents > 0 && len(events) > r.MaxEvents {
		lo = len(events) - r.MaxEvents
	}
	if r.MaxAge > 0 {
		cutoff := now.Add(-r.MaxAge)
		for i, e := range events {
			if e.TS.Before(cutoff) {
				lo = max(lo, i+1)
			}
		}
	}
	if r.MaxBytes > 0 {
		var total int64
		for i := len(events) - 1; i >= 0; i-- {
			n, err := EncodedSize(events[i])
			if err != nil {
				return 0, false, fmt.Errorf("could not size history: %w", err)
			}
			total += int64(n)
			if total > r.MaxBytes {
				lo = max(lo, i+1)
				break
			}
		}
	}
	if lo == 0 {
		return 0, false, nil
	}
	seq, ok := cutAt(events, lo)
	return seq, ok, nil
}
