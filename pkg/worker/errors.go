// Package worker is the runtime every Codali service shares: it consumes a
// durable JetStream pull consumer, runs a handler per event, publishes the
// events the handler produced, and only then acknowledges the input.
// Transient failures are redelivered with exponential backoff, permanent
// ones end the run, and messages that keep failing go to a dead-letter
// subject. Shutdown drains: in-flight handlers finish first.
package worker

import (
	"errors"
	"fmt"
	"time"
)

// ErrPermanent marks a failure that retrying cannot fix (invalid input, a
// contract violation). Handlers wrap it — fmt.Errorf("...: %w",
// worker.ErrPermanent) or worker.Permanent(err) — and the runtime then
// terminates the message and ends the run `failed` with the error as reason.
// Any other error is treated as transient and redelivered with backoff.
var ErrPermanent = errors.New("permanent failure")

// ErrInvalidConfig is wrapped by every runtime configuration error.
var ErrInvalidConfig = errors.New("invalid worker configuration")

// ErrConsumerMissing is returned by Run when the durable consumer does not
// exist; provision it first (bus.Provision).
var ErrConsumerMissing = errors.New("durable consumer does not exist")

// Permanent wraps err so that errors.Is(err, ErrPermanent) holds. A nil err
// stays nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrPermanent) {
		return err
	}
	return &permanentError{err: err}
}

// Permanentf formats a permanent error.
func Permanentf(format string, args ...any) error {
	return Permanent(fmt.Errorf(format, args...))
}

type permanentError struct{ err error }

func (e *permanentError) Error() string   { return e.err.Error() }
func (e *permanentError) Unwrap() []error { return []error{ErrPermanent, e.err} }

// IsPermanent reports whether err is marked permanent.
func IsPermanent(err error) bool { return errors.Is(err, ErrPermanent) }

// RetryAfter is implemented by errors that know when a retry can succeed
// (an HTTP 429 with Retry-After). The runtime waits at least that long
// before redelivering.
type RetryAfter interface {
	error
	RetryAfter() time.Duration
}
