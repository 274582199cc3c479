package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// JSON returns a redacted copy of a JSON document: every string value goes
// through [Redactor.String], and every string or number stored under a key
// for which [IsSecretKey] holds, at any depth below it, becomes
// "[REDACTED:secret]" (booleans and nulls are kept). Object keys, key
// order and numbers are preserved; the output is compact and always valid
// JSON.
//
// It returns an error wrapping [ErrInvalidJSON] if raw is not exactly one
// valid JSON value.
func (r *Redactor) JSON(raw []byte) ([]byte, error) {
	if !r.jsonMayNeedRedaction(raw) {
		// Nothing in the document can be a secret: only compact (and so
		// validate) it, which gives the same bytes as re-emitting it
		// except that raw U+2028, U+2029 and invalid UTF-8 in strings stay
		// as they are (re-emitting escapes the first two and replaces the
		// last by U+FFFD).
		var out bytes.Buffer
		if err := json.Compact(&out, raw); err != nil {
			return nil, fmt.Errorf("could not redact JSON: %w: %w", ErrInvalidJSON, err)
		}
		return out.Bytes(), nil
	}
	if !json.Valid(raw) {
		// Invalid input keeps the decoder's error text.
		return r.jsonByTokens(raw)
	}
	return r.jsonScan(raw), nil
}

// jsonMayNeedRedaction is JSON's fast path: it reports false only when no
// string in raw can match a rule, no key can be a secret key, and
// re-emitting the document would not change any string's escaping (only
// the escapes \n, \r, \t, \" and \\ occur, which the slow path writes
// back the same way).
func (r *Redactor) jsonMayNeedRedaction(raw []byte) bool {
	// The rules see decoded strings: undo the escapes first (any other
	// escape takes the slow path). Without escapes raw is the text.
	text := raw
	if i := bytes.IndexByte(raw, '\\'); i >= 0 {
		var ok bool
		if text, ok = unescapeSimple(raw, i); !ok {
			return true
		}
	}
	if _, sc := r.ruleSet(); anyMayMatch(sc, text) {
		return true
	}
	return containsKeyFragment(text)
}

// unescapeSimple returns raw with the escapes \n, \r, \t, \" and \\
// undone, its first backslash at i; false if another escape occurs.
func unescapeSimple(raw []byte, i int) ([]byte, bool) {
	text := make([]byte, 0, len(raw))
	for i >= 0 {
		text = append(text, raw[:i]...)
		if i+1 >= len(raw) {
			return nil, false
		}
		switch c := raw[i+1]; c {
		case 'n':
			text = append(text, '\n')
		case 'r':
			text = append(text, '\r')
		case 't':
			text = append(text, '\t')
		case '"', '\\':
			text = append(text, c)
		default:
			return nil, false
		}
		raw = raw[i+2:]
		i = bytes.IndexByte(raw, '\\')
	}
	return append(text, raw...), true
}

// containsKeyFragment reports whether text, lower-cased and stripped of
// the separators IsSecretKey ignores, contains a fragment every secret
// key contains (keyFragments: pass, pwd, secret, token, apikey, auth,
// cookie, ...). It reads text once, matching each fragment where its first
// letter occurs.
func containsKeyFragment(text []byte) bool {
	for i, c := range text {
		// ASCII lower case; no other byte maps to a fragment's first letter.
		for _, f := range keyFragments[c|0x20] {
			if fragmentAt(text[i+1:], f[1:]) {
				return true
			}
		}
	}
	return false
}

// keyFragments lists by first byte the fragments containsKeyFragment
// looks for: the normalized secret names, suffixes and "pass", without
// those that contain another (a key containing "secretkey" contains
// "secret"). Built once, never changed.
var keyFragments = func() *[256][]string {
	var all []string
	for _, s := range append(append([]string{passWord}, secretNames...), secretSuffixes...) {
		all = append(all, normalizedKey(s))
	}
	var t [256][]string
	for _, f := range minimalFragments(all) {
		t[f[0]] = append(t[f[0]], f)
	}
	return &t
}()

// minimalFragments returns the distinct strings of all that contain no
// other string of all, in their first order.
func minimalFragments(all []string) []string {
	var out []string
	for i, f := range all {
		keep := true
		for j, g := range all {
			if g == f && j < i || g != f && strings.Contains(f, g) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, f)
		}
	}
	return out
}

// fragmentAt reports whether text starts with rest once lower-cased,
// skipping separators.
func fragmentAt(text []byte, rest string) bool {
	k := 0
	for j := 0; k < len(rest); j++ {
		if j >= len(text) {
			return false
		}
		c, ok := keyByte(text[j])
		if !ok {
			continue
		}
		if c != rest[k] {
			return false
		}
		k++
	}
	return true
}
