package audit

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/redact"
)

// stateEncoder encodes one run's successive states, redacting only the
// top-level members that changed since the previous state it encoded. That
// is exact: the redaction of a member depends only on its own key and
// value (a secret key makes everything below it secret; nothing else
// carries over between members), so a member whose encoding is byte-for-byte
// the one redacted before redacts to the same bytes. An encoder belongs to
// one run's cache entry and is dropped with it.
type stateEncoder struct {
	// members maps a top-level key to its last unredacted encoding and
	// the redacted member ("key":value) made from it.
	members map[string]redactedMember
}

type redactedMember struct {
	raw, out []byte
	// elems holds, for an array value, each element's encoding and
	// redaction, so a growing array redacts only its new or changed
	// elements.
	elems []redactedElem
}

type redactedElem struct {
	raw, out []byte
}

// encode marshals st and redacts it with r (nil: no redaction); the
// result is the same document as r.JSON over the whole encoding.
func (e *stateEncoder) encode(r *redact.Redactor, st State) ([]byte, error) {
	raw, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("could not encode state: %w", err)
	}
	if r == nil {
		return raw, nil
	}
	members, err := rao.SplitObject(raw)
	if err != nil {
		return nil, fmt.Errorf("could not encode state: %w", err)
	}
	next := make(map[string]redactedMember, len(members))
	out := make([]byte, 0, len(raw))
	out = append(out, '{')
	for i, m := range members {
		rm, ok := e.members[m.Key]
		if !ok || !bytes.Equal(rm.raw, m.Raw) {
			if rm, err = redactMember(r, m, rm.elems); err != nil {
				return nil, err
			}
		}
		next[m.Key] = rm
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, rm.out...)
	}
	out = append(out, '}')
	e.members = next
	return out, nil
}

// redactMember redacts the one-member object {key: value} and keeps its
// inside ("key":value). An array value is redacted element by element
// (each as the only element of an array under the same key, so under the
// same secrecy), reusing the redaction of elements whose encoding is the
// one in old.
func redactMember(r *redact.Redactor, m rao.Member, old []redactedElem) (redactedMember, error) {
	key, err := json.Marshal(m.Key)
	if err != nil {
		return redactedMember{}, fmt.Errorf("could not encode state: %w", err)
	}
	if len(m.Raw) > 0 && m.Raw[0] == '[' {
		return redactArray(r, key, m.Raw, old)
	}
	red, err := redactObject(r, key, m.Raw)
	if err != nil {
		return redactedMember{}, err
	}
	return redactedMember{raw: m.Raw, out: red[1 : len(red)-1]}, nil
}

// redactArray is redactMember for an array value.
func redactArray(r *redact.Redactor, key, raw []byte, old []redactedElem) (redactedMember, error) {
	elems, err := rao.SplitArray(raw)
	if err != nil {
		return redactedMember{}, fmt.Errorf("could not encode state: %w", err)
	}
	// {"key":[]} redacts to {K:[]}: the redaction of {"key":[e]} is then
	// {K:[e']} with the same K (keys are never redacted, and the redactor
	// writes a key the same way whatever follows it), so e' starts after
	// len({K:[) bytes.
	empty, err := redactObject(r, key, []byte("[]"))
	if err != nil {
		return redactedMember{}, err
	}
	prefix := len(empty) - len("]}")
	rm := redactedMember{raw: raw, elems: make([]redactedElem, len(elems))}
	out := append([]byte{}, empty[1:prefix]...)
	for i, el := range elems {
		re := redactedElem{raw: el}
		if i < len(old) && bytes.Equal(old[i].raw, el) {
			re.out = old[i].out
		} else {
			one := make([]byte, 0, len(el)+2)
			red, err := redactObject(r, key, append(append(append(one, '['), el...), ']'))
			if err != nil {
				return redactedMember{}, err
			}
			re.out = red[prefix : len(red)-len("]}")]
		}
		rm.elems[i] = re
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, re.out...)
	}
	rm.out = append(out, ']')
	return rm, nil
}

// redactObject redacts the one-member object {key: value}.
func redactObject(r *redact.Redactor, key, value []byte) ([]byte, error) {
	doc := make([]byte, 0, len(key)+len(value)+3)
	doc = append(append(append(append(append(doc, '{'), key...), ':'), value...), '}')
	red, err := r.JSON(doc)
	if err != nil {
		return nil, fmt.Errorf("could not redact state: %w", err)
	}
	return red, nil
}
