package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/redact"
)

// stateEncoder encodes one run's successive states, redacting only the
// parts that changed since the previous state it encoded. An encoder
// belongs to one run's cache entry and is dropped with it.
//
// That is redact.JSON over the whole state but for one difference: the
// input of a state.set entry of the builder's Cognitive Protocol record,
// {"section": …, "key": <a plan step's id>, "value": …}, is not read as a
// name/value pair (see stateguide.go), so each of its members redacts as
// alone. Otherwise it is exact: redact.JSON redacts every string by itself, and a value
// under a secret key as a whole; object keys are kept. The one rule that
// looks at siblings, a name/value pair ({"name": "DB_PASSWORD", "value":
// …}: the "value" member is redacted), is reported by
// redact.PairedMembers, and such an object is never split; nor is an
// array of strings read as a command line whose arguments redact together
// (["mysql", "-pSECRET"], see redact.JointElements). So a value
// under a key with no secret key above it, in an object that is not a
// pair, redacts the same inside the whole state as alone under that key
// ({"key": value}, or {"key": [value]} for an array element), and the
// encoder walks into objects (not pairs) and arrays only below keys that
// are not secret, redacting the rest of each changed subtree as such a
// one-member document. Every byte of the result comes from redact.JSON's
// output, a kept key, or JSON punctuation.
type stateEncoder struct {
	root *redNode
	// clean says whether the last state encoded came out of redaction
	// unchanged (nothing in it was a secret).
	clean bool
}

// redNode is a value of the previous state: its unredacted encoding, its
// redaction, and for an object or array walked into, its members or
// elements.
type redNode struct {
	raw, out []byte
	members  map[string]*redNode
	elems    []*redNode
	// g is the guide the value was redacted under: a state.set input
	// redacts otherwise than the same object elsewhere.
	g *guide
}

// The encoder walks into changed objects and arrays down to maxRedactDepth
// and of at least redactWholeBelow bytes; smaller or deeper subtrees are
// redacted at once (splitting them costs more than it saves).
const (
	maxRedactDepth   = 6
	redactWholeBelow = 256
)

// encode marshals st (without HTML escaping) and redacts it with r (nil:
// no redaction); the result is the same document as r.JSON over the
// whole encoding.
func (e *stateEncoder) encode(r *redact.Redactor, st State) ([]byte, error) {
	// Without HTML escaping: redact.JSON writes strings without it anyway,
	// and a document with no escapes takes its fast path.
	var b bytes.Buffer
	je := json.NewEncoder(&b)
	je.SetEscapeHTML(false)
	if err := je.Encode(st); err != nil {
		return nil, fmt.Errorf("could not encode state: %w", err)
	}
	raw := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	e.clean = false
	if r == nil {
		e.clean = true
		return raw, nil
	}
	// json.Marshal writes exactly one valid JSON value.
	root, err := redactValue(r, "", rao.ValidJSON(raw), e.root, 0, stateGuide)
	if err != nil {
		return nil, err
	}
	e.root = root
	e.clean = bytes.Equal(root.out, raw)
	return root.out, nil
}

// redactValue redacts raw, the value of key (with no secret key above it;
// "" for the whole state), reusing old where raw is unchanged; g guides
// the walk to the state.set inputs (see stateguide.go).
func redactValue(r *redact.Redactor, key string, raw rao.ValidJSON, old *redNode, depth int, g *guide) (*redNode, error) {
	if old != nil && old.g == g && bytes.Equal(old.raw, raw) {
		return old, nil
	}
	walk := len(raw) > 0 && (depth == 0 || g != nil || len(raw) >= redactWholeBelow && depth < maxRedactDepth) && !redact.IsSecretKey(key)
	if walk && raw[0] == '{' {
		members, err := raw.Members()
		if err != nil {
			return nil, fmt.Errorf("could not redact state: %w", err)
		}
		// A name/value pair's members redact together: never split it,
		// but for a state.set input, whose key is an identifier of
		// Codali's own state.
		if g != nil && g.unpaired || !redact.PairedMembers(memberSeq(members)) {
			return redactObjectValue(r, raw, members, old, depth, g)
		}
		walk = false
	}
	if walk && raw[0] == '[' {
		elems, err := raw.Elements()
		if err != nil {
			return nil, fmt.Errorf("could not redact state: %w", err)
		}
		// An argv whose arguments redact together: never split it.
		if !redact.JointElements(elementSeq(elems)) {
			return redactArrayValue(r, key, raw, elems, old, depth, g.elemGuide())
		}
	}
	if depth == 0 {
		out, err := r.JSON(raw)
		if err != nil {
			return nil, fmt.Errorf("could not redact state: %w", err)
		}
		return &redNode{raw: raw, out: out, g: g}, nil
	}
	out, err := redactUnder(r, key, raw)
	if err != nil {
		return nil, err
	}
	return &redNode{raw: raw, out: out, g: g}, nil
}

// memberSeq yields each member's key and raw value.
func memberSeq(members []rao.Member) iter.Seq2[string, []byte] {
	return func(yield func(string, []byte) bool) {
		for _, m := range members {
			if !yield(m.Key, m.Raw) {
				return
			}
		}
	}
}

// elementSeq yields each element's raw value.
func elementSeq(elems []rao.ValidJSON) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for _, e := range elems {
			if !yield(e) {
				return
			}
		}
	}
}

func redactObjectValue(r *redact.Redactor, raw rao.ValidJSON, members []rao.Member, old *redNode, depth int, g *guide) (*redNode, error) {
	n := &redNode{raw: raw, members: make(map[string]*redNode, len(members)), g: g}
	out := make([]byte, 0, len(raw))
	out = append(out, '{')
	for i, m := range members {
		var prev *redNode
		if old != nil {
			prev = old.members[m.Key]
		}
		child, err := redactValue(r, m.Key, m.Raw, prev, depth+1, g.memberGuide(m.Key, members))
		if err != nil {
			return nil, err
		}
		n.members[m.Key] = child
		if i > 0 {
			out = append(out, ',')
		}
		out = append(appendKey(out, m.Key), ':')
		out = append(out, child.out...)
	}
	n.out = append(out, '}')
	return n, nil
}

// redactArrayValue walks an array; its elements are under the array's key.
func redactArrayValue(r *redact.Redactor, key string, raw rao.ValidJSON, elems []rao.ValidJSON, old *redNode, depth int, g *guide) (*redNode, error) {
	n := &redNode{raw: raw, elems: make([]*redNode, len(elems)), g: g}
	out := make([]byte, 0, len(raw))
	out = append(out, '[')
	for i, el := range elems {
		var prev *redNode
		if old != nil && i < len(old.elems) {
			prev = old.elems[i]
		}
		child, err := redactValue(r, key, el, prev, depth+1, g)
		if err != nil {
			return nil, err
		}
		n.elems[i] = child
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, child.out...)
	}
	n.out = append(out, ']')
	return n, nil
}

// redactUnder redacts value as redact.JSON does under key: it redacts the
// document {"key": value} and keeps the value's part, which starts after
// `{`, the key as redact.JSON writes it (appendKey) and `:`.
func redactUnder(r *redact.Redactor, key string, value []byte) ([]byte, error) {
	doc := appendKey([]byte{'{'}, key)
	prefix := len(doc) + 1
	doc = append(append(append(doc, ':'), value...), '}')
	red, err := r.JSON(doc)
	if err != nil {
		return nil, fmt.Errorf("could not redact state: %w", err)
	}
	return red[prefix : len(red)-1], nil
}

// appendKey appends key as a JSON string the way redact.JSON writes keys
// (no HTML escaping).
func appendKey(buf []byte, key string) []byte {
	if plainKey(key) {
		return append(append(append(buf, '"'), key...), '"')
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(key) // encoding a string cannot fail
	return append(buf, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}

// plainKey reports whether key is written as itself between quotes.
func plainKey(key string) bool {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
