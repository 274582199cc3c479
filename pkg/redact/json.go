package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
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
		// validate) it, which gives the same bytes as re-emitting it.
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

// secretKeyFragments: every key IsSecretKey accepts contains one of these
// once lower-cased and stripped of separators.
var secretKeyFragments = [][]byte{
	[]byte("pass"), []byte("pwd"), []byte("secret"), []byte("token"), []byte("apikey"), []byte("auth"),
	[]byte("credential"), []byte("cookie"), []byte("privatekey"), []byte("accesskey"), []byte("bearer"),
}

// jsonMayNeedRedaction is JSON's fast path: it reports false only when no
// string in raw can match a rule, no key can be a secret key, and
// re-emitting the document would not change any string's escaping (only
// the escapes \n, \r, \t, \" and \\ occur, which the slow path writes
// back the same way).
func (r *Redactor) jsonMayNeedRedaction(raw []byte) bool {
	// The rules see decoded strings: undo the escapes first (any other
	// escape takes the slow path).
	text := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			text = append(text, c)
			continue
		}
		if i+1 >= len(raw) {
			return true
		}
		i++
		switch raw[i] {
		case 'n':
			text = append(text, '\n')
		case 'r':
			text = append(text, '\r')
		case 't':
			text = append(text, '\t')
		case '"', '\\':
			text = append(text, raw[i])
		default:
			return true
		}
	}
	if _, sc := r.ruleSet(); anyMayMatch(sc, text) {
		return true
	}
	norm := text[:0] // reuse: text is no longer needed
	for _, c := range text {
		switch {
		case c == '-' || c == '_' || c == '.' || c == ' ':
		case 'A' <= c && c <= 'Z':
			norm = append(norm, c+'a'-'A')
		default:
			norm = append(norm, c)
		}
	}
	for _, f := range secretKeyFragments {
		if bytes.Contains(norm, f) {
			return true
		}
	}
	return false
}
