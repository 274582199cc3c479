package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	w := jsonWriter{r: r}
	w.enc = json.NewEncoder(&w.out)
	w.enc.SetEscapeHTML(false)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if !w.done {
				return nil, fmt.Errorf("could not redact JSON: %w: empty input", ErrInvalidJSON)
			}
			return w.out.Bytes(), nil
		}
		if err != nil {
			return nil, fmt.Errorf("could not redact JSON: %w: %w", ErrInvalidJSON, err)
		}
		if w.done {
			return nil, fmt.Errorf("could not redact JSON: %w: trailing data", ErrInvalidJSON)
		}
		w.token(tok)
	}
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

// jsonFrame is one open object or array.
type jsonFrame struct {
	object  bool
	secret  bool // everything inside is redacted
	first   bool // no member written yet
	wantKey bool // objects: the next token is a key
}

// jsonWriter re-emits a token stream, redacting as it goes. The decoder
// has already checked the structure, so the writer only tracks commas,
// keys and secrecy.
type jsonWriter struct {
	r          *Redactor
	out        bytes.Buffer
	enc        *json.Encoder // writes strings to out without HTML escaping
	stack      []jsonFrame
	secretNext bool // the next value is under a secret key
	done       bool // a complete top-level value has been written
}

func (w *jsonWriter) token(tok json.Token) {
	var top *jsonFrame
	if n := len(w.stack); n > 0 {
		top = &w.stack[n-1]
	}
	if top != nil && top.object && top.wantKey {
		if tok == json.Delim('}') {
			w.close('}')
			return
		}
		key, _ := tok.(string)
		if !top.first {
			w.out.WriteByte(',')
		}
		top.first, top.wantKey = false, false
		w.writeString(key)
		w.out.WriteByte(':')
		w.secretNext = top.secret || IsSecretKey(key)
		return
	}
	if tok == json.Delim(']') {
		w.close(']')
		return
	}
	secret := w.secretNext || (top != nil && top.secret)
	w.secretNext = false
	if top != nil && !top.object {
		if !top.first {
			w.out.WriteByte(',')
		}
		top.first = false
	}
	switch v := tok.(type) {
	case json.Delim: // '{' or '['
		w.out.WriteByte(byte(v))
		w.stack = append(w.stack, jsonFrame{object: v == '{', secret: secret, first: true, wantKey: v == '{'})
		return
	case string:
		if secret {
			v = marker(SecretLabel)
		} else {
			v = w.r.String(v)
		}
		w.writeString(v)
	case json.Number:
		if secret {
			w.writeString(marker(SecretLabel))
		} else {
			w.out.WriteString(v.String())
		}
	case bool:
		if v {
			w.out.WriteString("true")
		} else {
			w.out.WriteString("false")
		}
	case nil:
		w.out.WriteString("null")
	}
	w.valueDone()
}

func (w *jsonWriter) close(delim byte) {
	w.out.WriteByte(delim)
	w.stack = w.stack[:len(w.stack)-1]
	w.valueDone()
}

// valueDone records that a value ended: its object now wants a key, or the
// document is complete.
func (w *jsonWriter) valueDone() {
	if n := len(w.stack); n > 0 {
		if w.stack[n-1].object {
			w.stack[n-1].wantKey = true
		}
		return
	}
	w.done = true
}

// writeString writes s as a JSON string without HTML escaping.
func (w *jsonWriter) writeString(s string) {
	_ = w.enc.Encode(s)             // encoding a string into a bytes.Buffer cannot fail
	w.out.Truncate(w.out.Len() - 1) // drop Encode's newline
}
