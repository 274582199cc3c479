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

// valNode is a decoded JSON value with its encoding and, for an object or
// array decoded part by part, the nodes of its members or elements.
type valNode struct {
	raw      []byte
	val      any
	members  map[string]*valNode
	elems    []*valNode
	children bool // members or elems are set
}

// Values smaller than wholeBelow bytes, or deeper than maxTreeDepth, are
// decoded at once: splitting them costs more than it saves.
const (
	wholeBelow   = 256
	maxTreeDepth = 6
)

// decodeTree decodes raw like decodeValue, reusing the nodes of old whose
// bytes are unchanged.
func decodeTree(raw []byte, old *valNode, depth int) (*valNode, error) {
	if old != nil && bytes.Equal(old.raw, raw) {
		return old, nil
	}
	if len(raw) < wholeBelow || depth >= maxTreeDepth || (raw[0] != '{' && raw[0] != '[') {
		v, err := decodeValue(raw)
		if err != nil {
			return nil, err
		}
		return &valNode{raw: raw, val: v}, nil
	}
	n := &valNode{raw: raw, children: true}
	if raw[0] == '{' {
		members, err := SplitObject(raw)
		if err != nil {
			return nil, err
		}
		obj := make(map[string]any, len(members))
		n.members = make(map[string]*valNode, len(members))
		for _, m := range members {
			var prev *valNode
			if old != nil && old.children {
				prev = old.members[m.Key]
			}
			child, err := decodeTree(m.Raw, prev, depth+1)
			if err != nil {
				return nil, err
			}
			obj[m.Key], n.members[m.Key] = child.val, child
		}
		n.val = obj
		return n, nil
	}
	elems, err := SplitArray(raw)
	if err != nil {
		return nil, err
	}
	arr := make([]any, len(elems))
	n.elems = make([]*valNode, len(elems))
	for i, el := range elems {
		var prev *valNode
		if old != nil && old.children && i < len(old.elems) {
			prev = old.elems[i]
		}
		child, err := decodeTree(el, prev, depth+1)
		if err != nil {
			return nil, err
		}
		arr[i], n.elems[i] = child.val, child
	}
	n.val = arr
	return n, nil
}
