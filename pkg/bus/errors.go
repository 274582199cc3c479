package bus

import "errors"

// ErrInvalidConfig is wrapped by every configuration validation error.
var ErrInvalidConfig = errors.New("invalid configuration")

// ErrServerStart is returned when the embedded nats-server cannot start.
var ErrServerStart = errors.New("could not start embedded nats-server")
