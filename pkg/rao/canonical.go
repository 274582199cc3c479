package rao

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Canonical marshals v with encoding/json and returns its canonical form
// (see CanonicalizeJSON). To canonicalize bytes that already hold JSON, use
// CanonicalizeJSON or pass a json.RawMessage. It returns an error wrapping
// ErrInvalidJSON when v cannot be marshalled.
func Canonical(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("could not marshal value: %w: %w", ErrInvalidJSON, err)
	}
	return CanonicalizeJSON(raw)
}

// CanonicalizeJSON rewrites a single JSON value in canonical form: object
// keys sorted by their UTF-8 bytes (duplicate keys keep the last value), no
// insignificant whitespace, numbers kept exactly as written, strings
// escaped minimally (no HTML escaping). It returns an error wrapping
// ErrInvalidJSON when raw is not exactly one valid JSON value.
func CanonicalizeJSON(raw []byte) ([]byte, error) {
	v, err := decodeValue(raw)
	if err != nil {
		return nil, err
	}
	return appendCanonical(make([]byte, 0, len(raw)), v), nil
}

// decodeValue parses exactly one JSON value, keeping numbers as
// json.Number.
func decodeValue(raw []byte) (any, error) {
	if json.Valid(raw) {
		return parseValid(raw), nil
	}
	return decodeWithDecoder(raw)
}

// decodeWithDecoder is decodeValue by encoding/json's Decoder, which
// gives the error for invalid JSON.
func decodeWithDecoder(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("could not decode JSON: %w: %w", ErrInvalidJSON, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("could not decode JSON: %w: trailing data after the value", ErrInvalidJSON)
	}
	return v, nil
}

// canonicalWithin returns the canonical encoding of a decoded value when
// it is at most limit bytes long; ok is false otherwise, and then the
// encoding stops soon after it passes limit.
func canonicalWithin(v any, limit int) (b []byte, ok bool) {
	if limit < 0 {
		return nil, false
	}
	b, ok = appendCanonicalWithin(nil, v, limit)
	if !ok {
		return nil, false
	}
	return b, true
}

// appendCanonicalWithin is appendCanonical that gives up (ok false) once
// buf is longer than limit.
func appendCanonicalWithin(buf []byte, v any, limit int) ([]byte, bool) {
	switch x := v.(type) {
	case []any:
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			var ok bool
			if buf, ok = appendCanonicalWithin(buf, e, limit); !ok {
				return buf, false
			}
		}
		buf = append(buf, ']')
	case map[string]any:
		// Each member takes at least 4 bytes (`"":0`), one more for a comma.
		if len(x) > 0 && len(buf)+2+5*len(x)-1 > limit {
			return buf, false
		}
		buf = append(buf, '{')
		for i, k := range keysSorted(x) {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(appendString(buf, k), ':')
			var ok bool
			if buf, ok = appendCanonicalWithin(buf, x[k], limit); !ok {
				return buf, false
			}
		}
		buf = append(buf, '}')
	default:
		buf = appendCanonical(buf, v)
	}
	return buf, len(buf) <= limit
}

// canonicalBytes returns the canonical encoding of a decoded value.
func canonicalBytes(v any) []byte {
	return appendCanonical(nil, v)
}

// appendCanonical appends the canonical encoding of a value produced by
// decodeValue (nil, bool, json.Number, string, []any, map[string]any).
func appendCanonical(buf []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(buf, "null"...)
	case bool:
		return strconv.AppendBool(buf, x)
	case json.Number:
		return append(buf, x...)
	case string:
		return appendString(buf, x)
	case []any:
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendCanonical(buf, e)
		}
		return append(buf, ']')
	case map[string]any:
		buf = append(buf, '{')
		for i, k := range keysSorted(x) {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendString(buf, k)
			buf = append(buf, ':')
			buf = appendCanonical(buf, x[k])
		}
		return append(buf, '}')
	default:
		// Unreachable for values produced by decodeValue.
		panic(fmt.Sprintf("rao: unexpected decoded JSON type %T", v))
	}
}

// keysSorted returns m's keys in byte order.
func keysSorted(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaping only what JSON
// requires. Invalid UTF-8 is replaced by U+FFFD, as encoding/json does.
// Runs of bytes written as they are are appended at once.
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0 // s[start:i] is written as it is
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, "\ufffd"...)
			i++
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
