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
	// The tokens are read first: a "value" member's redaction may depend
	// on a "name" member after it.
	var toks []json.Token
	depth, done := 0, false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if !done {
				return nil, fmt.Errorf("could not redact JSON: %w: empty input", ErrInvalidJSON)
			}
			break
		}
		if err != nil {
			return nil, fmt.Errorf("could not redact JSON: %w: %w", ErrInvalidJSON, err)
		}
		if done {
			return nil, fmt.Errorf("could not redact JSON: %w: trailing data", ErrInvalidJSON)
		}
		toks = append(toks, tok)
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		done = depth == 0
	}
	w := jsonWriter{r: r, toks: toks, pairs: pairedTokenObjects(toks)}
	w.enc = json.NewEncoder(&w.out)
	w.enc.SetEscapeHTML(false)
	for i := range toks {
		w.token(i)
	}
	return w.out.Bytes(), nil
}

// jsonFrame is one open object or array.
type jsonFrame struct {
	object  bool
	secret  bool     // everything inside is redacted
	first   bool     // no member written yet
	wantKey bool     // objects: the next token is a key
	sib     siblings // objects: what the members make of value and data members
	argv    []int    // arrays: argvSecrets of the elements, or nil
	elem    int      // arrays: the index of the element being written
}

// tokenArgvSecrets returns splitArgvSecrets of the array whose elements
// start toks after the command words prefix, or nil if one of them is
// not a string.
func tokenArgvSecrets(toks []json.Token, prefix []string) []int {
	var args []string
	for _, tok := range toks {
		switch v := tok.(type) {
		case string:
			args = append(args, v)
		case json.Delim:
			if v == ']' {
				return splitArgvSecrets(prefix, args)
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}

// jsonWriter re-emits a token stream, redacting as it goes. The decoder
// has already checked the structure, so the writer only tracks commas,
// keys and secrecy.
type jsonWriter struct {
	r          *Redactor
	toks       []json.Token     // the whole document
	pairs      map[int]siblings // pairedTokenObjects(toks)
	out        bytes.Buffer
	enc        *json.Encoder // writes strings to out without HTML escaping
	stack      []jsonFrame
	secretNext bool     // the next value is under a secret key
	argsNext   []string // the next value is an args member after these command words
}

// token writes toks[i].
func (w *jsonWriter) token(i int) {
	tok := w.toks[i]
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
		w.secretNext = top.secret || IsSecretKey(key) || top.sib.redacts(roleOf(key))
		w.argsNext = nil
		if !w.secretNext {
			w.argsNext = top.sib.argsWords(roleOf(key))
		}
		return
	}
	if tok == json.Delim(']') {
		w.close(']')
		return
	}
	secret := w.secretNext || (top != nil && top.secret)
	prefix := w.argsNext
	w.secretNext, w.argsNext = false, nil
	if top != nil && !top.object {
		if !top.first {
			w.out.WriteByte(',')
			top.elem++
		}
		top.first = false
	}
	switch v := tok.(type) {
	case json.Delim: // '{' or '['
		w.out.WriteByte(byte(v))
		f := jsonFrame{object: v == '{', secret: secret, first: true, wantKey: v == '{', sib: w.pairs[i]}
		if v == '[' && !secret {
			f.argv = tokenArgvSecrets(w.toks[i+1:], prefix)
		}
		w.stack = append(w.stack, f)
		return
	case string:
		switch {
		case secret:
			v = marker(SecretLabel)
		case top != nil && top.argv != nil && top.argv[top.elem] >= 0:
			v = redactArg(v, top.argv[top.elem])
		case prefix != nil:
			v = w.r.argsString(prefix, v)
		default:
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

// valueDone records that a value ended: its object now wants a key.
func (w *jsonWriter) valueDone() {
	if n := len(w.stack); n > 0 && w.stack[n-1].object {
		w.stack[n-1].wantKey = true
	}
}

// pairedTokenObjects returns, by their indexes in toks, what the members
// of the objects ('{') with a "name" or "key" member naming a secret or a
// "kind" member "Secret" make of their value and data members.
func pairedTokenObjects(toks []json.Token) map[int]siblings {
	type frame struct {
		start   int
		object  bool
		wantKey bool
	}
	paired := map[int]siblings{}
	var stack []frame
	for i, tok := range toks {
		var top *frame
		if n := len(stack); n > 0 {
			top = &stack[n-1]
		}
		if top != nil && top.object && top.wantKey {
			if key, ok := tok.(string); ok {
				top.wantKey = false
				if role := roleOf(key); role == pairCommand || role == pairEntrypoint {
					if raw := tokenCommand(toks[i+1:]); raw != "" {
						sib := paired[top.start]
						sib.noteCommand(role, raw)
						paired[top.start] = sib
					}
				}
				if v, ok := toks[i+1].(string); ok {
					sib := paired[top.start]
					switch roleOf(key) {
					case pairName:
						sib.secretName = sib.secretName || IsSecretKey(v)
					case pairKind:
						sib.secretKind = sib.secretKind || v == "Secret"
					}
					if sib != (siblings{}) {
						paired[top.start] = sib
					}
				}
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			stack = append(stack, frame{start: i, object: tok == json.Delim('{'), wantKey: tok == json.Delim('{')})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if n := len(stack); n > 0 {
				top = &stack[n-1]
			} else {
				top = nil
			}
		}
		// A value ended: its object wants a key.
		if top != nil && top.object {
			top.wantKey = true
		}
	}
	return paired
}

// tokenCommand returns the JSON encoding of a command member's value,
// whose tokens start toks: a string, or an array ("[]" when it holds
// anything but strings); "" for anything else.
func tokenCommand(toks []json.Token) string {
	switch v := toks[0].(type) {
	case string:
		raw, _ := json.Marshal(v)
		return string(raw)
	case json.Delim:
		if v != '[' {
			return ""
		}
		var words []string
		for _, tok := range toks[1:] {
			switch e := tok.(type) {
			case string:
				words = append(words, e)
			case json.Delim:
				if e != ']' {
					return "[]"
				}
				raw, _ := json.Marshal(append([]string{}, words...))
				return string(raw)
			default:
				return "[]"
			}
		}
	}
	return ""
}

// writeString writes s as a JSON string without HTML escaping.
func (w *jsonWriter) writeString(s string) {
	_ = w.enc.Encode(s)             // encoding a string into a bytes.Buffer cannot fail
	w.out.Truncate(w.out.Len() - 1) // drop Encode's newline
}
