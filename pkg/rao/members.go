package rao

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Member is one top-level member of a JSON object, as SplitObject returns
// it: the key (unescaped) and the value's bytes (compact when the document is).
type Member struct {
	Key string
	Raw []byte
}

// SplitObject returns the members of the JSON object doc in document order,
// without decoding their values. It returns an error
// wrapping ErrInvalidJSON when doc is not a single valid JSON value, and
// ErrInvalidState when it is not an object.
func SplitObject(doc []byte) ([]Member, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("could not decode JSON: %w: %w", ErrInvalidJSON, err)
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("%w: must be a JSON object", ErrInvalidState)
	}
	var out []Member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("could not decode JSON: %w: %w", ErrInvalidJSON, err)
		}
		key, _ := tok.(string) // the decoder only yields strings as keys
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("could not decode JSON: %w: %w", ErrInvalidJSON, err)
		}
		out = append(out, Member{Key: key, Raw: raw})
	}
	if err := end(dec); err != nil {
		return nil, err
	}
	return out, nil
}

// SplitArray returns the elements of the JSON array doc in order, without
// decoding them. It returns an error wrapping ErrInvalidJSON when doc is
// not a single valid JSON value, and ErrInvalidState when it is not an
// array.
func SplitArray(doc []byte) ([][]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("could not decode JSON: %w: %w", ErrInvalidJSON, err)
	}
	if tok != json.Delim('[') {
		return nil, fmt.Errorf("%w: must be a JSON array", ErrInvalidState)
	}
	var out [][]byte
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("could not decode JSON: %w: %w", ErrInvalidJSON, err)
		}
		out = append(out, raw)
	}
	if err := end(dec); err != nil {
		return nil, err
	}
	return out, nil
}

// end reads the closing delimiter of the value being split and checks
// that nothing follows it.
func end(dec *json.Decoder) error {
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("could not decode JSON: %w: %w", ErrInvalidJSON, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("could not decode JSON: %w: trailing data after the value", ErrInvalidJSON)
	}
	return nil
}
