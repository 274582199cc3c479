package pmstate

import "errors"

// Sentinel errors of the package; match with errors.Is.
var (
	// ErrInvalidConfig means a constructor argument or option is unusable.
	ErrInvalidConfig = errors.New("invalid pmstate configuration")
	// ErrInvalidProject means a project id cannot be turned into a key
	// (empty or too long).
	ErrInvalidProject = errors.New("invalid project id")
	// ErrInvalidKey means a KV key was not produced by ProjectKey.
	ErrInvalidKey = errors.New("invalid project key")
	// ErrNilUpdateFunc means Update was called without an update function.
	ErrNilUpdateFunc = errors.New("nil update function")
	// ErrCorruptState means a stored entry does not decode into a valid
	// cognition state. The error also wraps cognition.ErrInvalidState.
	ErrCorruptState = errors.New("stored cognition state is corrupt")
	// ErrConflict means Update lost the compare-and-set race on every
	// attempt. The caller may retry later; nothing was written.
	ErrConflict = errors.New("too many concurrent updates")
)
