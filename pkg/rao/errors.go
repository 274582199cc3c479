package rao

import (
	"errors"
	"fmt"
)

// ErrInvalidJSON is wrapped by errors about input that is not a single
// valid JSON value.
var ErrInvalidJSON = errors.New("invalid JSON")

// ErrInvalidState is wrapped when a state document is not a JSON object or
// array (JSON Patch cannot address the root of a scalar document).
var ErrInvalidState = errors.New("invalid state document")

// ErrApply is wrapped by every error returned by Apply.
var ErrApply = errors.New("could not apply patch")

// ErrInvalidPatch is wrapped when a patch or one of its operations is
// malformed (unknown op, bad JSON Pointer, missing or extra value).
var ErrInvalidPatch = errors.New("invalid patch")

// ErrInvalidEvent is wrapped when an event fails validation or strict
// decoding.
var ErrInvalidEvent = errors.New("invalid RAO event")

// ErrInvalidConfig is wrapped when a Builder or Retention is configured
// with impossible values.
var ErrInvalidConfig = errors.New("invalid configuration")

// ErrNoEvents is returned when an operation needs at least one event.
var ErrNoEvents = errors.New("no events")

// ErrNotFound is wrapped when a requested sequence number is not in the
// history.
var ErrNotFound = errors.New("event not found")

// ErrNoBaseline is wrapped when a history neither starts at seq 1 nor has
// a checkpoint at or before the requested event, so no state can be built.
var ErrNoBaseline = errors.New("no baseline to replay from")

// ErrBrokenChain is wrapped when events handed to Replay or States are not
// a contiguous, increasing run of sequence numbers of one run.
var ErrBrokenChain = errors.New("broken event chain")

// ErrStateMismatch is wrapped by Builder.Next when the previous state given
// does not match the previous event's checkpoint snapshot.
var ErrStateMismatch = errors.New("previous state does not match previous event")

// ReplayError reports the event whose delta could not be applied (or whose
// position in the chain is wrong) during Replay or States.
type ReplayError struct {
	// Seq is the sequence number of the offending event.
	Seq uint64
	// Err is the underlying cause; it wraps ErrApply, ErrBrokenChain or
	// ErrInvalidJSON.
	Err error
}

// Error describes the failing event and the cause.
func (e *ReplayError) Error() string {
	return fmt.Sprintf("could not replay event seq %d: %v", e.Seq, e.Err)
}

// Unwrap returns the underlying cause.
func (e *ReplayError) Unwrap() error { return e.Err }
