package cognition

import "errors"

// Sentinel errors of the package. Returned errors wrap one or more of them;
// match with errors.Is.
var (
	// ErrInvalidPatchOp is wrapped by every error from decoding or encoding a
	// goal-tree or L1 memory patch op.
	ErrInvalidPatchOp = errors.New("invalid patch op")
	// ErrUnknownOp means the "op" tag names no known operation.
	ErrUnknownOp = errors.New("unknown op")
	// ErrMissingField means a required JSON field is absent or null.
	ErrMissingField = errors.New("missing required field")
	// ErrUnknownField means a JSON object carries a field its shape does not
	// allow.
	ErrUnknownField = errors.New("unknown field")
	// ErrInvalidField means a JSON field has the wrong type or an
	// unrepresentable value.
	ErrInvalidField = errors.New("invalid field")
	// ErrNegativeIndex means an L1 memory op carries an index below zero.
	ErrNegativeIndex = errors.New("negative index")
	// ErrInvalidActDraft is wrapped by every error from decoding or encoding
	// an ActDraft.
	ErrInvalidActDraft = errors.New("invalid act draft")
	// ErrInvalidState is wrapped by every problem Validate reports and by
	// state decoding failures.
	ErrInvalidState = errors.New("invalid cognition state")
	// ErrContractFailure means primary model output violates the output IR
	// contract; the caller must treat the whole cycle as a no-op.
	ErrContractFailure = errors.New("output IR contract failure")
	// ErrMalformedIR means the <output-ir> wrapper is missing, unclosed,
	// repeated or surrounded by other text. Always joined with
	// ErrContractFailure.
	ErrMalformedIR = errors.New("malformed output IR wrapper")
	// ErrMissingSection means a required first-level output IR section is
	// absent. Always joined with ErrContractFailure.
	ErrMissingSection = errors.New("missing output IR section")
	// ErrDuplicateSection means a first-level output IR section appears more
	// than once. Always joined with ErrContractFailure.
	ErrDuplicateSection = errors.New("duplicate output IR section")
	// ErrUnknownSection means the output IR holds a first-level element or
	// text that is not one of the three sections. Always joined with
	// ErrContractFailure.
	ErrUnknownSection = errors.New("unknown output IR content")
)
