package events

import (
	"errors"
	"fmt"
)

// Sentinel errors. Decoding errors wrap ErrInvalidEvent and one of the more
// specific sentinels, so callers can test either with errors.Is.
var (
	// ErrInvalidEvent is wrapped by every envelope or payload decoding error.
	ErrInvalidEvent = errors.New("invalid event")
	// ErrMalformedJSON: the message is not a JSON object.
	ErrMalformedJSON = errors.New("malformed JSON")
	// ErrSpecVersion: specversion is missing or not "1.0".
	ErrSpecVersion = errors.New("unsupported CloudEvents specversion")
	// ErrMissingAttribute: a required CloudEvents attribute is empty.
	ErrMissingAttribute = errors.New("missing required attribute")
	// ErrSubjectMismatch: the envelope's subject (run id) or type disagrees
	// with the NATS subject it arrived on.
	ErrSubjectMismatch = errors.New("envelope does not match NATS subject")
	// ErrTooLarge: the message exceeds the configured size limit.
	ErrTooLarge = errors.New("event too large")
	// ErrUnknownKind: the event type or subject names no known run event.
	ErrUnknownKind = errors.New("unknown event kind")
	// ErrBadSubject: the NATS subject is not codali.run.<run_id>.<event>.
	ErrBadSubject = errors.New("bad run subject")
	// ErrBadRunID: a run id cannot be used as a subject token.
	ErrBadRunID = errors.New("bad run id")
	// ErrInvalidPayload: the data does not satisfy its event's schema.
	ErrInvalidPayload = errors.New("invalid payload")
	// ErrBadAttempt: the attempt extension is missing or below 1.
	ErrBadAttempt = errors.New("bad attempt")
)

// DecodeError describes why a message could not be decoded. It wraps
// ErrInvalidEvent and the specific sentinel, and carries the run id when one
// could be read from the NATS subject, so a worker can still end that run.
type DecodeError struct {
	// Subject is the NATS subject the message arrived on.
	Subject string
	// RunID is the run the message belongs to, if it could be read from the
	// subject; empty otherwise.
	RunID string
	// Err is the specific cause.
	Err error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("invalid event on %s: %v", e.Subject, e.Err)
}

// Unwrap returns the cause and ErrInvalidEvent.
func (e *DecodeError) Unwrap() []error { return []error{ErrInvalidEvent, e.Err} }
