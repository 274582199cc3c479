package events

// validJSON reports whether data is one valid JSON value, as json.Valid
// does (nesting deeper than encoding/json's 10000 levels included), in one
// pass without a state machine per byte: json.Valid was most of the cost
// of reading a payload's run or keys with topMembers.
// FuzzValidJSON compares the two.
func validJSON(data []byte) bool {
	v := validator{data: data}
	v.space()
	if !v.value() {
		return false
	}
	v.space()
	return v.i == len(v.data)
}

// maxJSONDepth is encoding/json's nesting limit.
const maxJSONDepth = 10000

type validator struct {
	data  []byte
	i     int
	depth int
}

func (v *validator) space() {
	for v.i < len(v.data) {
		switch v.data[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

func (v *validator) value() bool {
	if v.i >= len(v.data) {
		return false
	}
	switch v.data[v.i] {
	case '{':
		return v.object()
	case '[':
		return v.array()
	case '"':
		return v.string()
	case 't':
		return v.literal("true")
	case 'f':
		return v.literal("false")
	case 'n':
		return v.literal("null")
	}
	return v.number()
}

func (v *validator) literal(lit string) bool {
	if len(v.data)-v.i < len(lit) || string(v.data[v.i:v.i+len(lit)]) != lit {
		return false
	}
	v.i += len(lit)
	return true
}

// open enters an object or array; it fails beyond the nesting limit.
func (v *validator) open() bool {
	v.depth++
	v.i++
	v.space()
	return v.depth <= maxJSONDepth
}

func (v *validator) object() bool {
	if !v.open() {
		return false
	}
	if v.i < len(v.data) && v.data[v.i] == '}' {
		v.i++
		v.depth--
		return true
	}
	for {
		if v.i >= len(v.data) || v.data[v.i] != '"' || !v.string() {
			return false
		}
		v.space()
		if v.i >= len(v.data) || v.data[v.i] != ':' {
			return false
		}
		v.i++
		v.space()
		if !v.value() {
			return false
		}
		v.space()
		if v.i >= len(v.data) {
			return false
		}
		switch v.data[v.i] {
		case ',':
			v.i++
			v.space()
		case '}':
			v.i++
			v.depth--
			return true
		default:
			return false
		}
	}
}

func (v *validator) array() bool {
	if !v.open() {
		return false
	}
	if v.i < len(v.data) && v.data[v.i] == ']' {
		v.i++
		v.depth--
		return true
	}
	for {
		if !v.value() {
			return false
		}
		v.space()
		if v.i >= len(v.data) {
			return false
		}
		switch v.data[v.i] {
		case ',':
			v.i++
			v.space()
		case ']':
			v.i++
			v.depth--
			return true
		default:
			return false
		}
	}
}

// string checks the string at data[i] (its opening quote): escapes must
// be JSON's, control characters escaped; other bytes, valid UTF-8 or not,
// are accepted, as encoding/json does.
func (v *validator) string() bool {
	for v.i++; v.i < len(v.data); v.i++ {
		c := v.data[v.i]
		switch {
		case c == '"':
			v.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			v.i++
			if v.i >= len(v.data) {
				return false
			}
			switch v.data[v.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(v.data)-v.i < 5 {
					return false
				}
				for _, h := range v.data[v.i+1 : v.i+5] {
					if !isHex(h) {
						return false
					}
				}
				v.i += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (v *validator) number() bool {
	if v.i < len(v.data) && v.data[v.i] == '-' {
		v.i++
	}
	if v.i >= len(v.data) {
		return false
	}
	switch c := v.data[v.i]; {
	case c == '0':
		v.i++
	case '1' <= c && c <= '9':
		v.digits()
	default:
		return false
	}
	if v.i < len(v.data) && v.data[v.i] == '.' {
		v.i++
		if !v.digits() {
			return false
		}
	}
	if v.i < len(v.data) && (v.data[v.i] == 'e' || v.data[v.i] == 'E') {
		v.i++
		if v.i < len(v.data) && (v.data[v.i] == '+' || v.data[v.i] == '-') {
			v.i++
		}
		if !v.digits() {
			return false
		}
	}
	return true
}

// digits skips [0-9]+; false when there is none.
func (v *validator) digits() bool {
	start := v.i
	for v.i < len(v.data) && '0' <= v.data[v.i] && v.data[v.i] <= '9' {
		v.i++
	}
	return v.i > start
}
