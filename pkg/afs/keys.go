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
// values are keyed by id.
func decodeLoose(data []byte, v any, idMaps map[string]bool) error {
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
