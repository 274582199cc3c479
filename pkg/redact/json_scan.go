package redact

import "bytes"

// jsonScanner redacts a document json.Valid accepted, in one pass over its
// bytes: structure and numbers are copied, whitespace dropped, and each
// string is decoded, redacted and encoded again exactly as encoding/json
// would (see decodeJSONString and appendJSONString). It is hand-written
// because encoding/json has no token scanner that does not allocate per
// token; it gives the same bytes as jsonByTokens, and relies on the input
// being valid (it does not check the structure again).
type jsonScanner struct {
	r   *Redactor
	sc  *hintScanner
	raw []byte
	pos int
	out []byte
	buf []byte // the decoded string, reused
	// pairs holds the offsets of the objects whose value or data members
	// are secret because of a sibling, found in one pass over the
	// document the first time such a member needs it (pairedObjects).
	pairs map[int]siblings
	// entry is 1 when the document may hold an "entrypoint" key (the
	// word in any case, or a \u escape, which may spell its letters), -1
	// when it cannot, 0 before the first command member asks.
	entry int8
}

// jsonScan redacts raw, which must be valid JSON.
func (r *Redactor) jsonScan(raw []byte) []byte {
	_, sc := r.ruleSet()
	s := jsonScanner{r: r, sc: sc, raw: raw, out: make([]byte, 0, len(raw)+len(raw)/8)}
	s.value(false)
	return s.out
}

// secretMarkerJSON is the secret marker as a JSON string.
const secretMarkerJSON = `"[REDACTED:` + SecretLabel + `]"`

func (s *jsonScanner) skipSpace() {
	for s.pos < len(s.raw) {
		switch s.raw[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value copies the value at pos (after any whitespace); secret is true
// below a secret key, where strings and numbers become the marker.
func (s *jsonScanner) value(secret bool) {
	s.skipSpace()
	switch s.raw[s.pos] {
	case '{':
		s.object(secret)
	case '[':
		s.array(secret, nil)
	case '"':
		s.stringValue(secret)
	case 't', 'n':
		s.out = append(s.out, s.raw[s.pos:s.pos+4]...)
		s.pos += 4
	case 'f':
		s.out = append(s.out, s.raw[s.pos:s.pos+5]...)
		s.pos += 5
	default:
		start := s.pos
		for s.pos < len(s.raw) && isNumberByte(s.raw[s.pos]) {
			s.pos++
		}
		if secret {
			s.out = append(s.out, secretMarkerJSON...)
		} else {
			s.out = append(s.out, s.raw[start:s.pos]...)
		}
	}
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

func (s *jsonScanner) object(secret bool) {
	start := s.pos
	s.out = append(s.out, '{')
	s.pos++
	s.skipSpace()
	if s.raw[s.pos] == '}' {
		s.out = append(s.out, '}')
		s.pos++
		return
	}
	var sib siblings // what the members read so far make of a value or data member (see pair.go)
	for {
		s.skipSpace()
		key, plain, lit := s.readString()
		if plain {
			s.out = append(s.out, lit...)
		} else {
			s.out = appendJSONString(s.out, key)
		}
		below := secret || isSecretKey(key)
		role := pairNone
		if !below {
			role = roleOf(key)
		}
		s.skipSpace()
		s.pos++ // ':'
		s.out = append(s.out, ':')
		switch role {
		case pairName, pairKind:
			s.skipSpace()
			sib.note(role, s.raw[s.pos:])
		case pairValue, pairData:
			if !sib.redacts(role) && s.pairs == nil {
				s.pairs = pairedObjects(s.raw)
			}
			below = sib.redacts(role) || s.pairs[start].redacts(role)
		}
		if prefix := s.argsPrefix(role, start); prefix != nil && s.raw[s.pos] == '[' {
			s.array(false, prefix)
		} else if prefix != nil {
			text, _, _ := s.readString()
			s.out = appendJSONString(s.out, s.r.argsString(prefix, string(text)))
		} else {
			s.value(below)
		}
		s.skipSpace()
		c := s.raw[s.pos]
		s.pos++
		s.out = append(s.out, c)
		if c == '}' {
			return
		}
	}
}

// argsPrefix returns the words of the command whose arguments the array
// or string at pos holds, the value of a member of this role in the object at
// start, or nil.
func (s *jsonScanner) argsPrefix(role pairRole, start int) []string {
	if role != pairArgs && role != pairCommand {
		return nil
	}
	if role == pairCommand {
		// A command member is an argv only after an entrypoint (Compose):
		// most documents with a command have none, and skip the objects'
		// pass.
		if s.entry == 0 {
			s.entry = -1
			if containsFold(s.raw, "entrypoint") || bytes.Contains(s.raw, []byte(`\u`)) {
				s.entry = 1
			}
		}
		if s.entry < 0 {
			return nil
		}
	}
	s.skipSpace()
	if s.raw[s.pos] != '[' && s.raw[s.pos] != '"' {
		return nil
	}
	if s.pairs == nil {
		s.pairs = pairedObjects(s.raw)
	}
	return s.pairs[start].argsWords(role)
}

// array copies an array; prefix, when not nil, are the words of the
// command whose arguments it holds (see command_split.go).
func (s *jsonScanner) array(secret bool, prefix []string) {
	s.out = append(s.out, '[')
	s.pos++
	s.skipSpace()
	if s.raw[s.pos] == ']' {
		s.out = append(s.out, ']')
		s.pos++
		return
	}
	var argv []int // an argv's passwords (see command.go)
	if !secret {
		argv = arrayArgvSecrets(s.raw, s.pos, prefix)
	}
	for i := 0; ; i++ {
		if argv != nil && argv[i] >= 0 {
			s.skipSpace()
			text, _, _ := s.readString()
			s.out = appendJSONString(s.out, redactArg(string(text), argv[i]))
		} else {
			s.value(secret)
		}
		s.skipSpace()
		c := s.raw[s.pos]
		s.pos++
		s.out = append(s.out, c)
		if c == ']' {
			return
		}
	}
}

// arrayArgvSecrets returns splitArgvSecrets of the array whose first
// element is at raw[i] (valid JSON) after the command words prefix, or
// nil if one of its elements is not a string.
func arrayArgvSecrets(raw []byte, i int, prefix []string) []int {
	// Most arrays are not an argv: only those of strings naming a command
	// (or escaping one) are decoded.
	start := i
	for raw[i] != ']' {
		switch raw[i] {
		case ' ', '\t', '\n', '\r', ',':
			i++
		case '"':
			i = skipJSONString(raw, i)
		default:
			return nil
		}
	}
	if prefix == nil && !mayNameCommand(raw[start:i]) {
		return nil
	}
	i = start
	var args []string
	for {
		for raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r' || raw[i] == ',' {
			i++
		}
		switch raw[i] {
		case ']':
			return splitArgvSecrets(prefix, args)
		case '"':
			text, end := decodeJSONString(nil, raw, i+1)
			args = append(args, string(text))
			i = end
		default:
			return nil
		}
	}
}

// stringValue copies a string value: the marker below a secret key,
// otherwise the string as the rules leave it.
func (s *jsonScanner) stringValue(secret bool) {
	text, plain, lit := s.readString()
	switch {
	case secret:
		s.out = append(s.out, secretMarkerJSON...)
	case anyMayMatch(s.sc, text):
		s.out = appendJSONString(s.out, s.r.String(string(text)))
	case plain:
		s.out = append(s.out, lit...)
	default:
		s.out = appendJSONString(s.out, text)
	}
}

// readString reads the string literal at pos and returns its decoded
// text. When plain is true the literal has no escapes and only printable
// ASCII, so lit (the literal, quotes included) is also its encoding; text
// then aliases raw, otherwise it is only valid until the next call.
func (s *jsonScanner) readString() (text []byte, plain bool, lit []byte) {
	start := s.pos
	i := start + 1
	for i < len(s.raw) {
		c := s.raw[i]
		if c == '"' {
			s.pos = i + 1
			return s.raw[start+1 : i], true, s.raw[start:s.pos]
		}
		if c == '\\' || c >= 0x80 {
			break
		}
		i++
	}
	s.buf, s.pos = decodeJSONString(s.buf[:0], s.raw, start+1)
	return s.buf, false, nil
}

// pairedObjects returns, by their offsets in raw (valid JSON), what the
// members of the objects with a "name" or "key" member naming a secret,
// a "kind" member "Secret" or a command member (a string or an array)
// make of their value, data and args members. One
// pass: looking ahead from each value member instead would read nested
// objects once per level.
func pairedObjects(raw []byte) map[int]siblings {
	type frame struct {
		start   int
		object  bool
		wantKey bool
		role    pairRole // of the last key read
	}
	var stack []frame
	paired := map[int]siblings{}
	var buf [64]byte
	for i := 0; i < len(raw); {
		switch c := raw[i]; c {
		case '{', '[':
			stack = append(stack, frame{start: i, object: c == '{', wantKey: c == '{'})
			i++
		case '}', ']':
			open := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			i++
			if n := len(stack); c == ']' && n > 0 && stack[n-1].object && !stack[n-1].wantKey && (stack[n-1].role == pairCommand || stack[n-1].role == pairEntrypoint) {
				sib := paired[stack[n-1].start]
				sib.noteCommand(stack[n-1].role, string(raw[open.start:i]))
				paired[stack[n-1].start] = sib
			}
		case ',':
			if top := &stack[len(stack)-1]; top.object {
				top.wantKey = true
			}
			i++
		case '"':
			end := skipJSONString(raw, i)
			if n := len(stack); n > 0 && stack[n-1].object {
				top := &stack[n-1]
				if top.wantKey {
					key, _ := decodeJSONString(buf[:0], raw, i+1)
					top.role, top.wantKey = roleOf(key), false
				} else if top.role == pairCommand || top.role == pairEntrypoint {
					sib := paired[top.start]
					sib.noteCommand(top.role, string(raw[i:end]))
					paired[top.start] = sib
				} else if top.role == pairName || top.role == pairKind {
					sib := paired[top.start]
					if sib.note(top.role, raw[i:end]); sib != (siblings{}) {
						paired[top.start] = sib
					}
				}
			}
			i = end
		default:
			i++
		}
	}
	return paired
}

// skipJSONString returns the index just after the string literal at
// raw[i].
func skipJSONString(raw []byte, i int) int {
	for i++; ; i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
}
