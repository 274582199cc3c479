package rao

import (
	"encoding/json"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// Apply applies the RFC 6902 patch p to the JSON document doc and returns
// the result in canonical form (see CanonicalizeJSON).
//
// It accepts every RFC 6902 operation (add, remove, replace, move, copy,
// test) with strict RFC semantics where the underlying library allows:
// negative array indexes are rejected, missing parents are not created,
// removing a missing member fails, and members named "" are addressed
// correctly. The document must be a JSON object or array; scalar documents
// cannot be patched. Every error wraps ErrApply; a doc that is not valid
// JSON also wraps ErrInvalidJSON, a malformed patch also wraps
// ErrInvalidPatch.
func Apply(doc []byte, p Patch) ([]byte, error) {
	cdoc, err := CanonicalizeJSON(doc)
	if err != nil {
		return nil, fmt.Errorf("%w: document: %w", ErrApply, err)
	}
	if len(p) == 0 {
		return cdoc, nil
	}
	res, err := applyCompact(cdoc, p)
	if err != nil {
		return nil, err
	}
	return canonicalResult(res)
}

// canonicalResult canonicalizes a patched document; errors wrap ErrApply.
func canonicalResult(res []byte) ([]byte, error) {
	out, err := CanonicalizeJSON(res)
	if err != nil {
		return nil, fmt.Errorf("%w: result: %w", ErrApply, err)
	}
	return out, nil
}

// applyCompact applies p to doc, which must be compact JSON as produced by
// CanonicalizeJSON or by an earlier applyCompact. The result is compact,
// valid JSON but its object members are not necessarily sorted, so that a
// run of deltas is canonicalized once at the end.
func applyCompact(doc []byte, p Patch) ([]byte, error) {
	if len(p) == 0 {
		return doc, nil
	}
	if len(doc) == 0 || (doc[0] != '{' && doc[0] != '[') {
		return nil, fmt.Errorf("%w: %w: the document is not an object or array", ErrApply, ErrInvalidState)
	}
	for i, op := range p {
		if err := op.validateAny(); err != nil {
			return nil, fmt.Errorf("%w: op %d: %w", ErrApply, i, err)
		}
	}
	if hasLooseIndex(p) {
		return applyStepwise(doc, p)
	}
	return applyChecked(doc, p)
}

// applyChecked is applyCompact after validation, without the loose index
// check.
func applyChecked(doc []byte, p Patch) ([]byte, error) {
	if !addressesEmptyKey(p) {
		return applyLib(doc, p)
	}
	rw, err := rewriteEmptyKeys(doc, p)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrApply, err)
	}
	res, err := applyLib(rw.doc, rw.patch)
	if err != nil {
		return nil, err
	}
	out, err := rw.restore(res)
	if err != nil {
		return nil, fmt.Errorf("%w: result: %w", ErrApply, err)
	}
	return out, nil
}

// applyStepwise applies p one operation at a time, rejecting before each
// one any pointer that addresses an array element with a non-canonical
// index such as "01", "+1" or "-0", which the library would accept.
func applyStepwise(doc []byte, p Patch) ([]byte, error) {
	for i, op := range p {
		v, err := decodeValue(doc)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrApply, err)
		}
		for _, ptr := range []string{op.Path, op.From} {
			if tok, bad := looseIndexIn(v, ptr); bad {
				return nil, fmt.Errorf("%w: op %d: %q is not a valid array index in %q", ErrApply, i, tok, ptr)
			}
		}
		if doc, err = applyChecked(doc, Patch{op}); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// applyLib applies p to the compact document doc with the json-patch
// library configured for strict RFC 6902 behaviour.
func applyLib(doc []byte, p Patch) ([]byte, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %w: %w", ErrApply, ErrInvalidPatch, err)
	}
	jp, err := jsonpatch.DecodePatch(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w: %w", ErrApply, ErrInvalidPatch, err)
	}
	opts := jsonpatch.NewApplyOptions()
	opts.SupportNegativeIndices = false
	opts.EnsurePathExistsOnAdd = false
	opts.AllowMissingPathOnRemove = false
	opts.EscapeHTML = false
	res, err := jp.ApplyWithOptions(doc, opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrApply, err)
	}
	return res, nil
}
