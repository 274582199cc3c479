package rao

import (
	"encoding/json"
	"fmt"
)

// JSON Patch operation names. Deltas produced by Diff use only OpAdd,
// OpRemove and OpReplace; Apply also accepts the other RFC 6902 operations.
const (
	OpAdd     = "add"
	OpRemove  = "remove"
	OpReplace = "replace"
	OpMove    = "move"
	OpCopy    = "copy"
	OpTest    = "test"
)

// Op is one RFC 6902 operation. It marshals to the standard form
// {"op":…,"path":…,"value":…}; From is only used by move and copy, which
// deltas never contain.
type Op struct {
	// Op is the operation name, e.g. OpAdd.
	Op string `json:"op"`
	// Path is the JSON Pointer (RFC 6901) the operation targets.
	Path string `json:"path"`
	// From is the source pointer of move and copy; empty otherwise.
	From string `json:"from,omitempty"`
	// Value is the operand of add, replace and test; nil for remove. A JSON
	// null is the 4 bytes "null", not nil.
	Value json.RawMessage `json:"value,omitempty"`
}

// Patch is an RFC 6902 JSON Patch: operations applied in order.
type Patch []Op

// MarshalJSON encodes the patch as a JSON array; a nil patch encodes as []
// rather than null. It fails when an operation's Value is not valid JSON.
func (p Patch) MarshalJSON() ([]byte, error) {
	if p == nil {
		return []byte("[]"), nil
	}
	b, err := json.Marshal([]Op(p))
	if err != nil {
		return nil, fmt.Errorf("could not marshal patch: %w", err)
	}
	return b, nil
}

// Validate checks that p is a well-formed RAO delta: every operation is
// add, remove or replace; every path is a valid JSON Pointer; add and
// replace carry one valid JSON value; remove carries none; no operation
// has a from. The error wraps ErrInvalidPatch and names the first bad
// operation.
func (p Patch) Validate() error {
	for i, op := range p {
		if err := op.validateDelta(); err != nil {
			return fmt.Errorf("delta op %d: %w", i, err)
		}
	}
	return nil
}

// validateDelta checks one delta operation (see Patch.Validate).
func (o Op) validateDelta() error {
	if _, err := parsePointer(o.Path); err != nil {
		return err
	}
	if o.From != "" {
		return fmt.Errorf("%w: %s operation must not have from", ErrInvalidPatch, o.Op)
	}
	switch o.Op {
	case OpAdd, OpReplace:
		if len(o.Value) == 0 {
			return fmt.Errorf("%w: %s %q has no value", ErrInvalidPatch, o.Op, o.Path)
		}
		if !json.Valid(o.Value) {
			return fmt.Errorf("%w: %s %q value is not valid JSON", ErrInvalidPatch, o.Op, o.Path)
		}
	case OpRemove:
		if len(o.Value) != 0 {
			return fmt.Errorf("%w: remove %q must not have a value", ErrInvalidPatch, o.Path)
		}
	default:
		return fmt.Errorf("%w: operation %q is not allowed in a delta (add, remove, replace)", ErrInvalidPatch, o.Op)
	}
	return nil
}

// validateAny checks one operation of any RFC 6902 kind before it is
// handed to the patch library: a known op, valid pointers, a valid value
// for add, replace and test, a from for move and copy (an empty From
// counts as missing). Errors wrap ErrInvalidPatch.
func (o Op) validateAny() error {
	if _, err := parsePointer(o.Path); err != nil {
		return err
	}
	if len(o.Value) > 0 && !json.Valid(o.Value) {
		return fmt.Errorf("%w: %s %q value is not valid JSON", ErrInvalidPatch, o.Op, o.Path)
	}
	switch o.Op {
	case OpAdd, OpReplace, OpTest:
		if len(o.Value) == 0 {
			return fmt.Errorf("%w: %s %q has no value", ErrInvalidPatch, o.Op, o.Path)
		}
	case OpMove, OpCopy:
		if o.From == "" {
			return fmt.Errorf("%w: %s %q has no from", ErrInvalidPatch, o.Op, o.Path)
		}
		if _, err := parsePointer(o.From); err != nil {
			return err
		}
	case OpRemove:
	default:
		return fmt.Errorf("%w: unknown operation %q", ErrInvalidPatch, o.Op)
	}
	return nil
}
