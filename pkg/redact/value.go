package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// UnencodableLabel is the marker label Value uses for a value it can
// neither walk nor encode as JSON: "[REDACTED:unencodable]".
const UnencodableLabel = "unencodable"

// Value returns a redacted copy of v, never modifying v:
//   - strings, []byte and errors (as their message string, as fmt prints
//     it: "<nil>" for a nil pointer whose Error panics) go through
//     String/Bytes;
//   - json.RawMessage goes through JSON (or Bytes if it is not valid JSON);
//   - map[string]any, map[string]string, []any and []string are copied
//     with each element redacted, and every string or number under a
//     key for which IsSecretKey holds, under the "value" key of a map
//     whose "name" or "key" names a secret, or under the "data" or
//     "stringData" key of a map whose "kind" is "Secret" (as in JSON), becomes
//     "[REDACTED:secret]"; a slice of strings read as a command line
//     has the passwords of its arguments redacted (see JointElements);
//   - nil, booleans and numbers are returned as they are;
//   - values nested more than 1000 deep (for example a map that contains
//     itself) become "[REDACTED:unencodable]";
//   - anything else (structs, pointers, other maps and slices) is encoded
//     as JSON and returned as a json.RawMessage redacted with JSON; if it
//     cannot be encoded (or its MarshalJSON panics) the result is
//     "[REDACTED:unencodable]", so nothing leaks unredacted.
func (r *Redactor) Value(v any) any {
	return r.value(v, false, 0)
}

// maxValueDepth bounds the walk so that a map or slice that contains
// itself ends in a marker instead of exhausting the stack.
const maxValueDepth = 1000

func (r *Redactor) value(v any, secret bool, depth int) any {
	if depth > maxValueDepth {
		return marker(UnencodableLabel)
	}
	depth++
	switch x := v.(type) {
	case nil, bool:
		return x
	case string:
		if secret {
			return marker(SecretLabel)
		}
		return r.String(x)
	case []byte:
		if secret {
			return []byte(marker(SecretLabel))
		}
		return bytes.Clone(r.Bytes(x))
	case json.Number:
		if secret {
			return marker(SecretLabel)
		}
		return x
	case json.RawMessage:
		return r.rawJSON(x, secret)
	case error:
		// fmt recovers from a panicking Error (a method on a nil pointer).
		return r.value(fmt.Sprint(x), secret, depth)
	case map[string]any:
		sib := pairedMap(x)
		out := make(map[string]any, len(x))
		for k, e := range x {
			below := secret || IsSecretKey(k) || sib.redacts(roleOf(k))
			if args, ok := r.argsValue(e, below, roleOf(k), sib, depth); ok {
				out[k] = args
				continue
			}
			out[k] = r.value(e, below, depth)
		}
		return out
	case map[string]string:
		sib := pairedMap(x)
		out := make(map[string]string, len(x))
		for k, e := range x {
			out[k] = r.value(e, secret || IsSecretKey(k) || sib.redacts(roleOf(k)), depth).(string)
		}
		return out
	case []any:
		return r.anySlice(x, secret, nil, depth)
	case []string:
		return r.stringSlice(x, secret, nil, depth)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		if secret {
			return marker(SecretLabel)
		}
		return v
	}
	return r.viaJSON(v, secret)
}

// rawJSON redacts a raw JSON value; invalid JSON is redacted as bytes.
func (r *Redactor) rawJSON(raw json.RawMessage, secret bool) json.RawMessage {
	if secret {
		return json.RawMessage(`"` + marker(SecretLabel) + `"`)
	}
	out, err := r.JSON(raw)
	if err != nil {
		return json.RawMessage(bytes.Clone(r.Bytes(raw)))
	}
	return out
}

// viaJSON redacts an arbitrary value by way of its JSON encoding.
func (r *Redactor) viaJSON(v any, secret bool) any {
	raw, err := marshalSafely(v)
	if err != nil {
		return marker(UnencodableLabel)
	}
	return r.rawJSON(raw, secret)
}

// errMarshalPanicked is marshalSafely's error for a panicking encoder.
var errMarshalPanicked = errors.New("a MarshalJSON or MarshalText method panicked")

// marshalSafely is json.Marshal that turns a panic of a value's own
// MarshalJSON or MarshalText (a method on a nil pointer) into an error, as
// fmt does for String and Error: a value logged must never crash its
// service.
func marshalSafely(v any) (raw []byte, err error) {
	defer func() {
		if recover() != nil {
			raw, err = nil, errMarshalPanicked
		}
	}()
	return json.Marshal(v)
}

// pairedMap reports what a map's "name", "key" and "kind" entries make
// of its value and data entries (see pair.go).
func pairedMap[V any](m map[string]V) siblings {
	var sib siblings
	cmdKey, entryKey := "", ""
	for k, e := range m {
		if roleOf(k) == pairEntrypoint && (sib.entrypoint == "" || k > entryKey) {
			switch any(e).(type) {
			case string, []string, []any:
				// As for the command keys: the last in sorted order.
				if raw, err := marshalSafely(e); err == nil {
					sib.entrypoint, entryKey = string(raw), k
				}
			}
		}
		if v, ok := any(e).(string); ok {
			switch roleOf(k) {
			case pairName:
				sib.secretName = sib.secretName || IsSecretKey(v)
			case pairKind:
				sib.secretKind = sib.secretKind || v == "Secret"
			}
		}
		if roleOf(k) == pairCommand && (sib.command == "" || k > cmdKey) {
			switch any(e).(type) {
			case string, []string, []any:
				// Of several command keys (cmd, command), the last in
				// sorted order, whatever the map's order.
				if raw, err := marshalSafely(e); err == nil {
					sib.command, cmdKey = string(raw), k
				}
			}
		}
	}
	return sib
}

// anyArgvSecrets returns splitArgvSecrets of a slice of strings after
// the command words prefix, or nil if one of its elements is not a
// string.
func anyArgvSecrets(x []any, prefix []string) []int {
	args := make([]string, len(x))
	for i, e := range x {
		s, ok := e.(string)
		if !ok {
			return nil
		}
		args[i] = s
	}
	return splitArgvSecrets(prefix, args)
}

// argsValue redacts the value of a map's member of this role as the
// arguments of the command its siblings name (see command_split.go);
// false when it is no such member.
func (r *Redactor) argsValue(e any, secret bool, role pairRole, sib siblings, depth int) (any, bool) {
	if secret {
		return nil, false
	}
	prefix := sib.argsWords(role)
	if prefix == nil {
		return nil, false
	}
	switch x := e.(type) {
	case []any:
		return r.anySlice(x, false, prefix, depth+1), true
	case []string:
		return r.stringSlice(x, false, prefix, depth+1), true
	case string:
		return r.argsString(prefix, x), true
	}
	return nil, false
}

// anySlice redacts a slice read as an argv after the command words
// prefix (nil: none).
func (r *Redactor) anySlice(x []any, secret bool, prefix []string, depth int) []any {
	var argv []int
	if !secret {
		argv = anyArgvSecrets(x, prefix)
	}
	out := make([]any, len(x))
	for i, e := range x {
		if argv != nil && argv[i] >= 0 {
			out[i] = redactArg(e.(string), argv[i])
			continue
		}
		out[i] = r.value(e, secret, depth)
	}
	return out
}

// stringSlice redacts a slice of strings read as an argv after the
// command words prefix (nil: none).
func (r *Redactor) stringSlice(x []string, secret bool, prefix []string, depth int) []string {
	var argv []int
	if !secret {
		argv = splitArgvSecrets(prefix, x)
	}
	out := make([]string, len(x))
	for i, e := range x {
		if argv != nil && argv[i] >= 0 {
			out[i] = redactArg(e, argv[i])
			continue
		}
		out[i] = r.value(e, secret, depth).(string)
	}
	return out
}
