package raostore

import (
	"errors"
	"fmt"
)

// ErrInvalidRunID is wrapped when a run ID cannot name a subject (see
// rao.ValidRunID).
var ErrInvalidRunID = errors.New("invalid run id")

// ErrNoStream is wrapped when the RAO stream does not exist.
var ErrNoStream = errors.New("RAO stream not found")

// ErrConflict is wrapped by Append when the run's subject has moved on
// since the expected sequence: another writer appended first. Load again
// and rebuild the event.
var ErrConflict = errors.New("RAO history changed since it was loaded")

// ErrDuplicate is wrapped by Append when the server already holds a
// message with the same message ID (the event's cause): the event was
// recorded before and was not stored again.
var ErrDuplicate = errors.New("RAO event already recorded")

// ErrCorruptEvent is wrapped when a stored message is not a valid event of
// the run it is filed under.
var ErrCorruptEvent = errors.New("corrupt RAO event in stream")

// ErrNotCheckpoint is wrapped by Compact when asked to keep a history that
// would not start at a checkpoint.
var ErrNotCheckpoint = errors.New("compaction must keep a checkpoint first")

// CorruptEventError reports a stored message that does not decode as an
// event of its run.
type CorruptEventError struct {
	// StreamSeq is the message's sequence in the stream.
	StreamSeq uint64
	// Err is the cause (from rao.Decode, or a run mismatch).
	Err error
}

// Error describes the message and cause.
func (e *CorruptEventError) Error() string {
	return fmt.Sprintf("%v: stream seq %d: %v", ErrCorruptEvent, e.StreamSeq, e.Err)
}

// Unwrap returns ErrCorruptEvent and the cause.
func (e *CorruptEventError) Unwrap() []error { return []error{ErrCorruptEvent, e.Err} }

// ConflictError reports a rejected Append.
type ConflictError struct {
	// Expected is the last subject sequence the writer expected.
	Expected uint64
	// Actual is the subject's last sequence when the conflict was
	// checked (0 if it could not be read).
	Actual uint64
	// Err is the server's error.
	Err error
}

// Error describes the conflict.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("%v: expected last sequence %d, stream has %d: %v", ErrConflict, e.Expected, e.Actual, e.Err)
}

// Unwrap returns ErrConflict and the server's error.
func (e *ConflictError) Unwrap() []error { return []error{ErrConflict, e.Err} }
