package policy

import (
	"errors"
	"fmt"
)

// ErrInvalidPolicy is wrapped by every error that reports a policy which
// cannot be decoded or does not validate.
var ErrInvalidPolicy = errors.New("invalid policy")

// ErrInvalidGlob is wrapped by every error that reports a malformed glob
// pattern.
var ErrInvalidGlob = errors.New("invalid glob pattern")

// ErrArgvTooLong is wrapped by [CheckArgvSize] errors: a command with too
// many or too long arguments.
var ErrArgvTooLong = errors.New("command too long")

// ErrUnsupportedFormat is returned by [Parse] when asked for a format other
// than [FormatAuto], [FormatJSON] or [FormatYAML].
var ErrUnsupportedFormat = errors.New("unsupported policy format")

// FieldError reports one problem with one field of a policy. It matches
// both [ErrInvalidPolicy] and its underlying cause with errors.Is.
type FieldError struct {
	// Field names the offending field, e.g. "never_touch[2]".
	Field string
	// Err is the underlying problem.
	Err error
}

// Error describes the field and the problem.
func (e *FieldError) Error() string {
	return fmt.Sprintf("%s: %v", e.Field, e.Err)
}

// Unwrap returns [ErrInvalidPolicy] and the underlying problem.
func (e *FieldError) Unwrap() []error {
	return []error{ErrInvalidPolicy, e.Err}
}
