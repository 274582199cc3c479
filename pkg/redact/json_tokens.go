package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonByTokens is JSON's path for input that json.Valid rejects: it
// re-emits encoding/json's token stream, redacting as it goes, and returns
// the decoder's error. It is also the reference the tests hold the
// scanner (jsonScan) to, byte for byte, on valid input.
func (r *Redactor) jsonByTokens(raw []byte) ([]byte, error) {
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
