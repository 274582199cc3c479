package codex

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidPayload is the root of every error about a payload that fails
// validation or cannot be produced. All other sentinels in this package wrap
// it, so errors.Is(err, ErrInvalidPayload) matches any of them.
var ErrInvalidPayload = errors.New("invalid RL4-CODEX payload")

// ErrSizeExceeded matches payloads larger than MaxPayloadBytes
// (diagnostic ERROR:size-exceeded).
var ErrSizeExceeded = fmt.Errorf("payload exceeds %d bytes: %w", MaxPayloadBytes, ErrInvalidPayload)

// ErrUnparseable matches payloads whose envelope or block structure cannot be
// parsed (diagnostic ERROR:unparseable).
var ErrUnparseable = fmt.Errorf("payload is unparseable: %w", ErrInvalidPayload)

// ErrMissingBlock matches payloads lacking a required block
// (diagnostic ERROR:missing-block:<name>).
var ErrMissingBlock = fmt.Errorf("required block missing: %w", ErrInvalidPayload)

// ErrBlockOrder matches payloads whose blocks are not in canonical order
// (diagnostic ERROR:block-order:<name>).
var ErrBlockOrder = fmt.Errorf("blocks out of canonical order: %w", ErrInvalidPayload)

// ErrDuplicateBlock matches payloads that repeat a known block
// (diagnostic ERROR:duplicate-block:<name>).
var ErrDuplicateBlock = fmt.Errorf("block repeated: %w", ErrInvalidPayload)

// ErrHashViolation matches payloads carrying a malformed identifier or a raw
// path/filename where a hashed identifier belongs
// (diagnostic ERROR:hash-violation:<token>).
var ErrHashViolation = fmt.Errorf("identifier is not a hashed symbol: %w", ErrInvalidPayload)

// ErrRawContent matches payloads carrying raw code, JSON, YAML, base64,
// prose or non-ASCII text inside a block (diagnostic ERROR:raw-content:<token>).
var ErrRawContent = fmt.Errorf("raw content inside a block: %w", ErrInvalidPayload)

// ErrOptionalOverflow matches payloads whose OPTIONAL block exceeds
// MaxOptionalChars (diagnostic ERROR:optional-overflow, reported by Validate
// only; Decode truncates instead).
var ErrOptionalOverflow = fmt.Errorf("OPTIONAL block exceeds %d chars: %w", MaxOptionalChars, ErrInvalidPayload)

// ErrInvalidState matches encoder input that cannot be serialised (bad enum,
// out-of-range number, a value containing separators). It wraps
// ErrInvalidPayload because Encode then emits nothing.
var ErrInvalidState = fmt.Errorf("invalid encoder state: %w", ErrInvalidPayload)

// sentinelFor maps an ERROR diagnostic code to its sentinel error. Unknown
// codes map to ErrInvalidPayload.
func sentinelFor(c Code) error {
	switch c {
	case CodeSizeExceeded:
		return ErrSizeExceeded
	case CodeUnparseable:
		return ErrUnparseable
	case CodeMissingBlock:
		return ErrMissingBlock
	case CodeBlockOrder:
		return ErrBlockOrder
	case CodeDuplicateBlock:
		return ErrDuplicateBlock
	case CodeHashViolation:
		return ErrHashViolation
	case CodeRawContent:
		return ErrRawContent
	case CodeOptionalOverflow:
		return ErrOptionalOverflow
	default:
		return ErrInvalidPayload
	}
}

// PayloadError reports a payload rejected by validation. It carries the full
// diagnostic list; its Unwrap exposes one sentinel per distinct ERROR code so
// that errors.Is(err, ErrMissingBlock) and errors.Is(err, ErrInvalidPayload)
// both work.
type PayloadError struct {
	// Diagnostics is every diagnostic produced, warnings included.
	Diagnostics []Diagnostic
}

// Error lists the ERROR diagnostics, e.g. "ERROR:missing-block:DATA".
func (e *PayloadError) Error() string {
	var parts []string
	for _, d := range e.Diagnostics {
		if d.IsError() {
			parts = append(parts, d.String())
		}
	}
	if len(parts) == 0 {
		return ErrInvalidPayload.Error()
	}
	return strings.Join(parts, ", ")
}

// Unwrap returns the sentinels of the ERROR diagnostics, deduplicated, or
// ErrInvalidPayload alone when there is none.
func (e *PayloadError) Unwrap() []error {
	var errs []error
	seen := map[error]bool{}
	for _, d := range e.Diagnostics {
		if !d.IsError() {
			continue
		}
		s := sentinelFor(d.Code)
		if !seen[s] {
			seen[s] = true
			errs = append(errs, s)
		}
	}
	if len(errs) == 0 {
		errs = append(errs, ErrInvalidPayload)
	}
	return errs
}

// FieldError reports an encoder State field that cannot be serialised. It
// unwraps to ErrInvalidState (and hence ErrInvalidPayload), and to Err when
// set.
type FieldError struct {
	// Field names the State field, e.g. "Context.Stack[1]".
	Field string
	// Value is the offending value as given.
	Value string
	// Reason says what is wrong with it.
	Reason string
	// Err is a more specific sentinel, ErrHashViolation for an identifier
	// field that is not a hashed symbol; nil otherwise.
	Err error
}

// Error describes the field, its value and the reason.
func (e *FieldError) Error() string {
	return fmt.Sprintf("field %s=%q: %s", e.Field, e.Value, e.Reason)
}

// Unwrap returns ErrInvalidState and Err when set.
func (e *FieldError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalidState, e.Err}
	}
	return []error{ErrInvalidState}
}
