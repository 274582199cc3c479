package cognition

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// fields is a decoded JSON object whose values are still raw.
type fields map[string]json.RawMessage

// decodeObject decodes data as a JSON object; anything else is ErrInvalidField.
func decodeObject(data []byte) (fields, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, fmt.Errorf("%w: expected a JSON object", ErrInvalidField)
	}
	var f fields
	if err := json.Unmarshal(trimmed, &f); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidField, err)
	}
	return f, nil
}

// onlyAllowed fails with ErrUnknownField for the first key (in sorted order)
// not in allowed.
func (f fields) onlyAllowed(allowed ...string) error {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("%w: %q", ErrUnknownField, k)
		}
	}
	return nil
}

// has reports whether key is present with a non-null value.
func (f fields) has(key string) bool {
	raw, ok := f[key]
	return ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// raw returns the value of a required key, or ErrMissingField.
func (f fields) raw(key string) (json.RawMessage, error) {
	if !f.has(key) {
		return nil, fmt.Errorf("%w: %q", ErrMissingField, key)
	}
	return f[key], nil
}

// str decodes a required string field.
func (f fields) str(key string) (string, error) {
	raw, err := f.raw(key)
	if err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%w: %q must be a string", ErrInvalidField, key)
	}
	return s, nil
}

// id decodes a required string field that must not be empty.
func (f fields) id(key string) (string, error) {
	s, err := f.str(key)
	if err != nil {
		return "", err
	}
	if s == "" {
		return "", fmt.Errorf("%w: %q must not be empty", ErrInvalidField, key)
	}
	return s, nil
}

// int32 decodes a required integer field that must fit in an int32.
func (f fields) int32(key string) (int32, error) {
	raw, err := f.raw(key)
	if err != nil {
		return 0, err
	}
	var v int32
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, fmt.Errorf("%w: %q must be a 32-bit integer", ErrInvalidField, key)
	}
	return v, nil
}

// index decodes a required non-negative integer field.
func (f fields) index(key string) (int, error) {
	raw, err := f.raw(key)
	if err != nil {
		return 0, err
	}
	var v int64
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, fmt.Errorf("%w: %q must be an integer", ErrInvalidField, key)
	}
	if v < 0 {
		return 0, fmt.Errorf("%w: %q is %d", ErrNegativeIndex, key, v)
	}
	if v > math.MaxInt {
		return 0, fmt.Errorf("%w: %q is too large", ErrInvalidField, key)
	}
	return int(v), nil
}

// uint64 decodes a required unsigned integer field.
func (f fields) uint64(key string) (uint64, error) {
	raw, err := f.raw(key)
	if err != nil {
		return 0, err
	}
	var v uint64
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, fmt.Errorf("%w: %q must be an unsigned integer", ErrInvalidField, key)
	}
	return v, nil
}

// into decodes an optional field into dst; absent or null leaves dst alone.
func (f fields) into(key string, dst any) error {
	if !f.has(key) {
		return nil
	}
	if err := json.Unmarshal(f[key], dst); err != nil {
		return fmt.Errorf("%w: %q: %w", ErrInvalidField, key, err)
	}
	return nil
}
