package redact

import (
	"errors"
	"fmt"
)

// ErrInvalidPattern is wrapped by every error [New] returns for an extra
// pattern that does not compile or matches the empty string.
var ErrInvalidPattern = errors.New("invalid redaction pattern")

// ErrInvalidJSON is wrapped by the error [Redactor.JSON] returns for input
// that is not a single valid JSON document.
var ErrInvalidJSON = errors.New("invalid JSON")

// PatternError reports one extra pattern that [New] rejected. It matches
// [ErrInvalidPattern] and its cause with errors.Is.
type PatternError struct {
	// Index is the pattern's position in the list given to New.
	Index int
	// Pattern is the rejected expression.
	Pattern string
	// Err is the cause (a *syntax.Error from regexp, or a description).
	Err error
}

// Error describes the pattern and the problem.
func (e *PatternError) Error() string {
	return fmt.Sprintf("redaction pattern %d %q: %v", e.Index, e.Pattern, e.Err)
}

// Unwrap returns [ErrInvalidPattern] and the cause.
func (e *PatternError) Unwrap() []error {
	return []error{ErrInvalidPattern, e.Err}
}
