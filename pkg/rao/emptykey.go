package rao

import (
	"encoding/json"
	"strconv"
)

// The patch library resolves an empty reference token ("" as in "/" or
// "//a") to the container itself instead of its member named "". When a
// patch addresses such a member, Apply renames every "" member of the
// document and of the patch values to an unused placeholder, rewrites the
// pointers accordingly, applies, and renames the placeholder back. The
// renaming is a bijection, so the result is what RFC 6902 prescribes.

// addressesEmptyKey reports whether any path or from of p has an empty
// reference token.
func addressesEmptyKey(p Patch) bool {
	for _, op := range p {
		for _, ptr := range []string{op.Path, op.From} {
			toks, err := parsePointer(ptr)
			if err != nil {
				continue
			}
			for _, t := range toks {
				if t == "" {
					return true
				}
			}
		}
	}
	return false
}

// collectKeys adds every object member name found in v to keys.
func collectKeys(v any, keys map[string]struct{}) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			collectKeys(e, keys)
		}
	case map[string]any:
		for k, e := range x {
			keys[k] = struct{}{}
			collectKeys(e, keys)
		}
	}
}

// renameKey returns v with every object member named from renamed to to.
func renameKey(v any, from, to string) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = renameKey(e, from, to)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k == from {
				k = to
			}
			out[k] = renameKey(e, from, to)
		}
		return out
	default:
		return v
	}
}

// renamePointer replaces empty tokens of a valid pointer by placeholder;
// invalid pointers are returned unchanged for the library to reject.
func renamePointer(ptr, placeholder string) string {
	toks, err := parsePointer(ptr)
	if err != nil {
		return ptr
	}
	for i, t := range toks {
		if t == "" {
			toks[i] = placeholder
		}
	}
	return joinPointer(toks)
}

// emptyKeyPlaceholder picks a member name used nowhere in doc or in the
// patch values.
func emptyKeyPlaceholder(doc any, values []any) string {
	keys := map[string]struct{}{}
	collectKeys(doc, keys)
	for _, v := range values {
		collectKeys(v, keys)
	}
	for n := 0; ; n++ {
		cand := "\x00rao-empty-" + strconv.Itoa(n)
		if _, used := keys[cand]; !used {
			return cand
		}
	}
}

// emptyKeyRewrite holds a document and patch with "" members renamed.
type emptyKeyRewrite struct {
	placeholder string
	doc         []byte
	patch       Patch
}

// rewriteEmptyKeys renames "" members in doc and p.
// Values that are not valid JSON are left for the library to reject.
func rewriteEmptyKeys(cdoc []byte, p Patch) (emptyKeyRewrite, error) {
	doc, err := decodeValue(cdoc)
	if err != nil {
		return emptyKeyRewrite{}, err
	}
	values := make([]any, len(p))
	valid := make([]bool, len(p))
	for i, op := range p {
		if len(op.Value) == 0 {
			continue
		}
		v, err := decodeValue(op.Value)
		if err != nil {
			continue
		}
		values[i], valid[i] = v, true
	}
	ph := emptyKeyPlaceholder(doc, values)
	out := emptyKeyRewrite{placeholder: ph, doc: canonicalBytes(renameKey(doc, "", ph)), patch: make(Patch, len(p))}
	for i, op := range p {
		op.Path = renamePointer(op.Path, ph)
		if op.From != "" {
			op.From = renamePointer(op.From, ph)
		}
		if valid[i] {
			op.Value = json.RawMessage(canonicalBytes(renameKey(values[i], "", ph)))
		}
		out.patch[i] = op
	}
	return out, nil
}

// restore renames the placeholder back to "" in a patched document.
func (r emptyKeyRewrite) restore(res []byte) ([]byte, error) {
	v, err := decodeValue(res)
	if err != nil {
		return nil, err
	}
	return canonicalBytes(renameKey(v, r.placeholder, "")), nil
}
