package bus

import (
	"errors"

	"github.com/nats-io/nats.go/jetstream"
)

// ErrInvalidConfig is wrapped by every configuration validation error.
var ErrInvalidConfig = errors.New("invalid configuration")

// ErrServerStart is returned when the embedded nats-server cannot start.
var ErrServerStart = errors.New("could not start embedded nats-server")

// IsWrongLastSequence reports whether err is the server refusing a publish
// whose expected last sequence no longer holds: a lost optimistic write
// (a stream append or a KV compare-and-set).
func IsWrongLastSequence(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) &&
		(apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
			apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// IsConflict reports whether a KV write lost its compare-and-set: a
// Create that found the key, or an Update that found another revision —
// which a replicated bucket reports as ErrKeyRevisionMismatch with
// another error code than a single server (10164, not 10071), so
// ErrKeyExists alone misses it — or any publish whose expected last
// sequence no longer holds.
func IsConflict(err error) bool {
	return errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) || IsWrongLastSequence(err)
}
