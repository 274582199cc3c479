package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Value is a decoded scalar kept as the payload spelled it (e.g. "0.82",
// "strict"). An absent value is Unknown, never "" or zero.
type Value string

// Unknown is the explicit marker for an absent or unusable value.
const Unknown Value = "UNKNOWN"

// IsUnknown reports whether v is Unknown (the empty Value counts as Unknown).
func (v Value) IsUnknown() bool { return v == "" || v == Unknown }

// String returns the value, or "UNKNOWN".
func (v Value) String() string {
	if v.IsUnknown() {
		return string(Unknown)
	}
	return string(v)
}

// Int returns v as an integer; ok is false when v is Unknown or not a plain
// base-10 integer that fits in int64.
func (v Value) Int() (n int64, ok bool) {
	if v.IsUnknown() || !isNumber(string(v), true, false) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// Float returns v as a number; ok is false when v is Unknown or not a plain
// decimal number (no exponent, NaN or Inf).
func (v Value) Float() (f float64, ok bool) {
	if v.IsUnknown() || !isNumber(string(v), true, true) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// MarshalText renders v, with "UNKNOWN" for an empty value.
func (v Value) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// isNumber reports whether s is [sign]digits[.digits]; sign and fraction are
// allowed only when the flags say so.
func isNumber(s string, signed, fraction bool) bool {
	if s == "" {
		return false
	}
	if s[0] == '+' || s[0] == '-' {
		if !signed {
			return false
		}
		s = s[1:]
	}
	intPart, frac, hasDot := cutByte(s, '.')
	if !allDigits(intPart) {
		return false
	}
	if hasDot {
		return fraction && allDigits(frac)
	}
	return true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func cutByte(s string, sep byte) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// List is an ordered decoded list. A nil List means the payload did not carry
// the field (UNKNOWN); a non-nil, possibly empty, List means it did. In JSON a
// nil List is the string "UNKNOWN" and any other List is an array.
type List[T any] []T

// Known reports whether the payload carried the field.
func (l List[T]) Known() bool { return l != nil }

// MarshalJSON renders "UNKNOWN" for a nil List, an array otherwise.
func (l List[T]) MarshalJSON() ([]byte, error) {
	if l == nil {
		return json.Marshal(string(Unknown))
	}
	return json.Marshal([]T(l))
}

// UnmarshalJSON accepts "UNKNOWN" (giving a nil List) or an array. Any other
// input returns an error.
func (l *List[T]) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if bytes.Equal(data, []byte(`"UNKNOWN"`)) || bytes.Equal(data, []byte("null")) {
		*l = nil
		return nil
	}
	var items []T
	if err := json.Unmarshal(data, &items); err != nil {
		return fmt.Errorf("could not decode list: %w", err)
	}
	if items == nil {
		items = []T{}
	}
	*l = items
	return nil
}

// Integrity is the decoded integrity state of a run.
type Integrity string

const (
	// IntegrityGreen: the run passed its gates.
	IntegrityGreen Integrity = "GREEN"
	// IntegrityAmber: the run passed with warnings.
	IntegrityAmber Integrity = "AMBER"
	// IntegrityRed: the run failed its gates.
	IntegrityRed Integrity = "RED"
	// IntegrityUnknown: absent or unrecognised integrity.
	IntegrityUnknown Integrity = "UNKNOWN"
)

// parseIntegrity maps green/amber/red (any case) to the enum; ok is false
// otherwise.
func parseIntegrity(s string) (Integrity, bool) {
	switch Integrity(upperASCII(s)) {
	case IntegrityGreen:
		return IntegrityGreen, true
	case IntegrityAmber:
		return IntegrityAmber, true
	case IntegrityRed:
		return IntegrityRed, true
	default:
		return IntegrityUnknown, false
	}
}

func upperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}
