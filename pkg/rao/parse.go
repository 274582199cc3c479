package rao

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// parseValid decodes one valid JSON value (json.Valid holds for doc) as
// encoding/json decodes it into an any with UseNumber: objects as
// map[string]any (a repeated key keeps its last value), arrays as []any,
// numbers as json.Number. It does not check doc again, so it must only see
// valid JSON.
func parseValid(doc []byte) any {
	p := validParser{doc: doc}
	return p.value()
}

type validParser struct {
	doc []byte
	i   int
}

func (p *validParser) skip() {
	for p.i < len(p.doc) && isSpace(p.doc[p.i]) {
		p.i++
	}
}

func (p *validParser) value() any {
	p.skip()
	switch p.doc[p.i] {
	case '{':
		obj := map[string]any{}
		p.i++
		p.skip()
		if p.doc[p.i] == '}' {
			p.i++
			return obj
		}
		for {
			p.skip()
			k := p.string()
			p.skip()
			p.i++ // ':'
			obj[k] = p.value()
			p.skip()
			c := p.doc[p.i]
			p.i++ // ',' or '}'
			if c == '}' {
				return obj
			}
		}
	case '[':
		arr := []any{}
		p.i++
		p.skip()
		if p.doc[p.i] == ']' {
			p.i++
			return arr
		}
		for {
			arr = append(arr, p.value())
			p.skip()
			c := p.doc[p.i]
			p.i++ // ',' or ']'
			if c == ']' {
				return arr
			}
		}
	case '"':
		return p.string()
	case 't':
		p.i += len("true")
		return true
	case 'f':
		p.i += len("false")
		return false
	case 'n':
		p.i += len("null")
		return nil
	}
	end := valueEnd(p.doc, p.i)
	n := json.Number(p.doc[p.i:end])
	p.i = end
	return n
}

// string decodes the string at p.i: as it stands when it has no escapes
// and is valid UTF-8, otherwise as encoding/json unquotes it (escapes,
// surrogates, invalid UTF-8 replaced by U+FFFD).
func (p *validParser) string() string {
	end := stringEnd(p.doc, p.i)
	quoted := p.doc[p.i:end]
	p.i = end
	body := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body)
	}
	var s string
	// quoted is a valid JSON string: Unmarshal cannot fail.
	_ = json.Unmarshal(quoted, &s)
	return s
}
