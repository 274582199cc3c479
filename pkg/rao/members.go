package rao

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// ValidJSON is a document known to hold exactly one valid JSON value
// (from CheckJSON, or a part of such a document), which can be split into
// its members or elements without validating it again.
type ValidJSON []byte

// CheckJSON returns doc as ValidJSON, or an error wrapping ErrInvalidJSON
// when it is not exactly one valid JSON value. Surrounding whitespace is
// dropped.
func CheckJSON(doc []byte) (ValidJSON, error) {
	if !json.Valid(doc) {
		return nil, fmt.Errorf("could not read JSON: %w", ErrInvalidJSON)
	}
	i, j := skipSpace(doc, 0), len(doc)
	for j > i && isSpace(doc[j-1]) {
		j--
	}
	return ValidJSON(doc[i:j:j]), nil
}

// Member is one member of a JSON object, as ValidJSON.Members returns it:
// the key (unescaped) and the value's bytes as they stand in the document.
type Member struct {
	Key string
	Raw ValidJSON
}

// Members returns the members of the object d in document order, without
// decoding their values; they alias d. It returns an error wrapping
// ErrInvalidState when d is not an object.
func (d ValidJSON) Members() ([]Member, error) { return splitObject(d) }

// Elements returns the elements of the array d in order, without decoding
// them; they alias d. It returns an error wrapping ErrInvalidState when d
// is not an array.
func (d ValidJSON) Elements() ([]ValidJSON, error) { return splitArray(d) }

// splitObject splits a valid JSON object: it scans the bytes once and
// decodes only the keys.
func splitObject(doc ValidJSON) ([]Member, error) {
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return nil, fmt.Errorf("%w: must be a JSON object", ErrInvalidState)
	}
	var out []Member
	for i = skipSpace(doc, i+1); i < len(doc) && doc[i] != '}'; {
		kend := stringEnd(doc, i)
		key, err := unquote(doc[i:kend])
		if err != nil {
			return nil, err
		}
		i = skipSpace(doc, skipSpace(doc, kend)+1) // past ':'
		vend := valueEnd(doc, i)
		out = append(out, Member{Key: key, Raw: doc[i:vend:vend]})
		i = skipSpace(doc, vend)
		if i < len(doc) && doc[i] == ',' {
			i = skipSpace(doc, i+1)
		}
	}
	return out, nil
}

// splitArray splits a valid JSON array.
func splitArray(doc ValidJSON) ([]ValidJSON, error) {
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '[' {
		return nil, fmt.Errorf("%w: must be a JSON array", ErrInvalidState)
	}
	var out []ValidJSON
	for i = skipSpace(doc, i+1); i < len(doc) && doc[i] != ']'; {
		vend := valueEnd(doc, i)
		out = append(out, doc[i:vend:vend])
		i = skipSpace(doc, vend)
		if i < len(doc) && doc[i] == ',' {
			i = skipSpace(doc, i+1)
		}
	}
	return out, nil
}

func skipSpace(doc []byte, i int) int {
	for i < len(doc) && isSpace(doc[i]) {
		i++
	}
	return i
}

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// stringEnd returns the index after the string starting at doc[i].
func stringEnd(doc []byte, i int) int {
	for j := i + 1; j < len(doc); j++ {
		switch doc[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(doc)
}

// valueEnd returns the index after the value starting at doc[i].
func valueEnd(doc []byte, i int) int {
	if i >= len(doc) {
		return len(doc)
	}
	switch doc[i] {
	case '"':
		return stringEnd(doc, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(doc); j++ {
			switch doc[j] {
			case '"':
				j = stringEnd(doc, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(doc)
	}
	j := i
	for j < len(doc) && bytes.IndexByte([]byte(",}] \t\n\r"), doc[j]) < 0 {
		j++
	}
	return j
}

// unquote decodes a JSON string (its quotes included) as encoding/json
// does: invalid UTF-8 becomes U+FFFD, so a key reads as the decoded
// document has it (sorted and merged with its equals).
func unquote(s []byte) (string, error) {
	if bytes.IndexByte(s, '\\') < 0 && len(s) >= 2 && utf8.Valid(s[1:len(s)-1]) {
		return string(s[1 : len(s)-1]), nil
	}
	var out string
	if err := json.Unmarshal(s, &out); err != nil {
		return "", fmt.Errorf("could not split JSON: %w: %w", ErrInvalidJSON, err)
	}
	return out, nil
}

// valNode is a decoded JSON value with its encoding and, for an object or
// array decoded part by part, the nodes of its members or elements.
type valNode struct {
	raw      []byte
	val      any
	members  map[string]*valNode
	elems    []*valNode
	children bool // members or elems are set
	// canon is the value's canonical encoding once computed (canonical).
	canon []byte
}

// canonical returns the canonical encoding of n's value, computed once per
// node: a node reused from the previous state keeps it, and an object or
// array decoded part by part is assembled from its parts' encodings.
func (n *valNode) canonical() []byte {
	if n.canon != nil {
		return n.canon
	}
	switch {
	case !n.children:
		n.canon = canonicalBytes(n.val)
	case n.members != nil:
		keys := make([]string, 0, len(n.members))
		size := 2
		for k, m := range n.members {
			keys = append(keys, k)
			size += len(k) + 4 + len(m.canonical())
		}
		slices.Sort(keys)
		buf := make([]byte, 0, size)
		buf = append(buf, '{')
		for i, k := range keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(appendString(buf, k), ':')
			buf = append(buf, n.members[k].canonical()...)
		}
		n.canon = append(buf, '}')
	default:
		size := 2
		for _, e := range n.elems {
			size += len(e.canonical()) + 1
		}
		buf := make([]byte, 0, size)
		buf = append(buf, '[')
		for i, e := range n.elems {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, e.canonical()...)
		}
		n.canon = append(buf, ']')
	}
	return n.canon
}

// Values smaller than wholeBelow bytes, or deeper than maxTreeDepth, are
// decoded at once: splitting them costs more than it saves.
const (
	wholeBelow   = 256
	maxTreeDepth = 6
)

// decodeTree decodes raw (valid JSON, from CheckJSON) like decodeValue,
// reusing the nodes of old whose bytes are unchanged.
func decodeTree(raw ValidJSON, old *valNode, depth int) (*valNode, error) {
	if old != nil && bytes.Equal(old.raw, raw) {
		return old, nil
	}
	if len(raw) < wholeBelow || depth >= maxTreeDepth || (raw[0] != '{' && raw[0] != '[') {
		// raw is part of a checked document: no need to validate it again.
		return &valNode{raw: raw, val: parseValid(raw)}, nil
	}
	n := &valNode{raw: raw, children: true}
	if raw[0] == '{' {
		members, err := splitObject(raw)
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
	elems, err := splitArray(raw)
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
