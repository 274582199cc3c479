package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// checkJSONKeys walks a JSON policy document and rejects keys that are
// duplicated or that differ from a field's JSON name other than exactly
// (encoding/json would accept "NEVER_TOUCH" and keep only the last of two
// equal keys). Structural errors are left to the decoder; this walk only
// reports them if it cannot continue.
func checkJSONKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	return walkJSONKeys(dec, reflect.TypeFor[Policy](), "")
}

// walkJSONKeys consumes one JSON value from dec that should decode into t.
func walkJSONKeys(dec *json.Decoder, t reflect.Type, at string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch {
	case delim == '{' && t.Kind() == reflect.Struct:
		fields := jsonFields(t)
		seen := make(map[string]bool)
		for dec.More() {
			keyTok, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := keyTok.(string)
			where := key
			if at != "" {
				where = at + "." + key
			}
			field, known := fields[key]
			if !known {
				return fmt.Errorf("unknown key %q", where)
			}
			if seen[key] {
				return fmt.Errorf("duplicate key %q", where)
			}
			seen[key] = true
			if err := walkJSONKeys(dec, field, where); err != nil {
				return err
			}
		}
	case delim == '{' && t.Kind() == reflect.Map:
		seen := make(map[string]bool)
		for dec.More() {
			keyTok, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := keyTok.(string)
			where := fmt.Sprintf("%s[%q]", at, key)
			if seen[key] {
				return fmt.Errorf("duplicate key %s", where)
			}
			seen[key] = true
			if err := walkJSONKeys(dec, t.Elem(), where); err != nil {
				return err
			}
		}
	case delim == '[' && t.Kind() == reflect.Slice:
		for i := 0; dec.More(); i++ {
			if err := walkJSONKeys(dec, t.Elem(), fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	default:
		if at == "" {
			at = "document"
		}
		return fmt.Errorf("%s: unexpected %v", at, delim)
	}
	_, err = dec.Token() // the closing delimiter
	return err
}

// jsonFields maps the exact JSON names of t's fields to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	fields := make(map[string]reflect.Type, t.NumField())
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			fields[name] = f.Type
		}
	}
	return fields
}
