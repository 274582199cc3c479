package sandbox

import "errors"

// Sentinel errors.
var (
	// ErrUnavailable: the configured sandbox cannot run on this host
	// (bubblewrap missing, or user namespaces not allowed). Commands are
	// refused rather than run unsandboxed.
	ErrUnavailable = errors.New("sandbox unavailable")
	// ErrInvalid: a sandbox configuration or command spec is invalid.
	ErrInvalid = errors.New("invalid sandbox configuration")
	// ErrCommand: the command could not be started (not found, empty).
	ErrCommand = errors.New("command could not run")
)
