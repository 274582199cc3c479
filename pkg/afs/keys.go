package afs

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
)

// snakeKey turns a camelCase key into snake_case ("anxietyLevel" →
// "anxiety_level", "durationMs" → "duration_ms"). Keys that are not plain
// camelCase identifiers (ids such as "fear-1a2b") are returned unchanged.
func snakeKey(k string) string {
	if k == "" || !isCamelIdent(k) {
		return k
	}
	var b strings.Builder
	rs := []rune(k)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			// An upper-case run ("ID" in "instanceID") stays one word.
			prevUpper := i > 0 && unicode.IsUpper(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if i > 0 && (!prevUpper || nextLower) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isCamelIdent reports whether k is letters and digits only, starts with a
// lower-case letter and has an upper-case letter somewhere.
func isCamelIdent(k string) bool {
	upper := false
	for i, r := range k {
		switch {
		case i == 0 && !unicode.IsLower(r):
			return false
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsLetter(r) || unicode.IsDigit(r):
		default:
			return false
		}
	}
	return upper
}

// snakeAll converts the keys of every object in v to snake_case, except the
// keys of objects reached through a key listed in idMaps (stores keyed by
// id, whose keys are data): their values are still converted.
func snakeAll(v any, idMaps map[string]bool) any {
	return snakeWalk(v, idMaps, false)
}

func snakeWalk(v any, idMaps map[string]bool, keysAreIDs bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			nk := k
			if !keysAreIDs {
				nk = snakeKey(k)
			}
			// A snake key wins over its camel twin when both are present.
			if _, dup := out[nk]; dup && nk != k {
				continue
			}
			out[nk] = snakeWalk(val, idMaps, !keysAreIDs && idMaps[nk])
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = snakeWalk(val, idMaps, false)
		}
		return out
	default:
		return v
	}
}

// decodeLoose decodes JSON written with snake_case or camelCase keys into v,
// whose fields carry snake_case tags. idMaps names the keys whose object
// values are keyed by id. v's types must have no UnmarshalJSON or
// json.RawMessage of their own: they would see the normalised JSON on one
// path and the original on the other.
//
// JSON whose keys all are plainly snake_case (what Render writes) is
// decoded directly, as the normalised copy would be the same; anything
// else, and any error, goes through the normalised copy.
func decodeLoose(data []byte, v any, idMaps map[string]bool) error {
	if plainKeys(data) && json.Unmarshal(data, v) == nil {
		return nil
	}
	return decodeNormalised(data, v, idMaps)
}

// decodeNormalised decodes data into v through a copy with every key in
// snake_case.
func decodeNormalised(data []byte, v any, idMaps map[string]bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	norm, err := json.Marshal(snakeAll(raw, idMaps))
	if err != nil {
		return err
	}
	return json.Unmarshal(norm, v)
}

// plainKeys reports whether normalising data would change no key and
// drop no duplicate: every object key is ASCII without upper-case letters
// or escapes (so snakeKey leaves it alone), and no object repeats a key
// (the normalised copy keeps only the last; a direct decode would merge
// object values). It is a scan, not a parse: when in doubt (a bracket
// out of place, a string without its end) it says false.
func plainKeys(data []byte) bool {
	var objects [][][]byte // the keys of each open object
	var open []bool        // the open objects (true) and arrays (false)
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '{', '[':
			open = append(open, c == '{')
			if c == '{' {
				objects = append(objects, nil)
			}
		case '}', ']':
			if len(open) == 0 || open[len(open)-1] != (c == '}') {
				return false
			}
			open = open[:len(open)-1]
			if c == '}' {
				objects = objects[:len(objects)-1]
			}
		case '"':
			start := i + 1
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if i >= len(data) {
				return false
			}
			if !isKey(data[i+1:]) {
				continue
			}
			key := data[start:i]
			if len(open) == 0 || !open[len(open)-1] || !plainKey(key) {
				return false
			}
			seen := &objects[len(objects)-1]
			for _, k := range *seen {
				if bytes.Equal(k, key) {
					return false
				}
			}
			*seen = append(*seen, key)
		}
	}
	return len(open) == 0
}

// isKey reports whether what follows a string is a colon (after white
// space): the string was an object key.
func isKey(rest []byte) bool {
	for _, b := range rest {
		switch b {
		case ' ', '\t', '\n', '\r':
		case ':':
			return true
		default:
			return false
		}
	}
	return false
}

// plainKey reports whether a raw key is ASCII with no upper-case letter
// and no escape.
func plainKey(key []byte) bool {
	for _, b := range key {
		if b >= 0x80 || b == '\\' || ('A' <= b && b <= 'Z') {
			return false
		}
	}
	return true
}
