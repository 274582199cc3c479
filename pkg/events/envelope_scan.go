package events

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// decodeEnvelope decodes msg as json.Decoder.Decode into an Envelope,
// followed by a check that nothing but a closing bracket follows
// (json.Decoder.More), gives it. A message that is one valid JSON object
// whose keys are plain is decoded member by member with the member
// scanner, each value by the decoding the struct decoder would use for
// its field, in order; anything else (invalid or trailing data, a key
// that matches a field only after case folding or unescaping, a value of
// the wrong type) goes to json.Decoder, which gives the error.
// FuzzDecodeEnvelope compares the two.
func decodeEnvelope(msg []byte) (Envelope, error) {
	if e, ok := scanEnvelope(msg); ok {
		return e, nil
	}
	var e Envelope
	dec := json.NewDecoder(bytes.NewReader(msg))
	if err := dec.Decode(&e); err != nil {
		return Envelope{}, fmt.Errorf("%w: %w", ErrMalformedJSON, err)
	}
	if dec.More() {
		return Envelope{}, fmt.Errorf("%w: trailing data after the event", ErrMalformedJSON)
	}
	return e, nil
}

// scanEnvelope is decodeEnvelope's member-by-member decoding; ok is false
// when json.Decoder must decide.
func scanEnvelope(msg []byte) (e Envelope, ok bool) {
	if !validJSON(msg) {
		return Envelope{}, false
	}
	ok = true
	isObject := topMembers(msg, func(key, value []byte) bool {
		var dst *string
		switch string(key) {
		case "specversion":
			dst = &e.SpecVersion
		case "id":
			dst = &e.ID
		case "source":
			dst = &e.Source
		case "type":
			dst = &e.Type
		case "subject":
			dst = &e.Subject
		case "datacontenttype":
			dst = &e.DataContentType
		case "traceparent":
			dst = &e.TraceParent
		case "time":
			ok = json.Unmarshal(value, &e.Time) == nil
			return ok
		case "attempt":
			ok = json.Unmarshal(value, &e.Attempt) == nil
			return ok
		case "data":
			e.Data = append(json.RawMessage(nil), value...)
			return true
		default:
			// An unknown member is ignored, unless it could match a
			// field after case folding or unescaping.
			ok = plainKey(key) && !envelopeField(key)
			return ok
		}
		ok = scanString(value, dst)
		return ok
	})
	return e, ok && isObject
}

// envelopeFields are the JSON names of Envelope's fields.
var envelopeFields = []string{"specversion", "id", "source", "type", "subject", "time", "datacontenttype", "attempt", "traceparent", "data"}

// envelopeField reports whether key equals a field name but for case.
func envelopeField(key []byte) bool {
	for _, f := range envelopeFields {
		if bytes.EqualFold(key, []byte(f)) {
			return true
		}
	}
	return false
}

// scanString decodes the JSON value into *dst as the struct decoder does
// for a string field: a string without escapes or bytes outside ASCII is
// its bytes, null leaves *dst alone, anything else goes to json.Unmarshal.
func scanString(value []byte, dst *string) bool {
	if len(value) >= 2 && value[0] == '"' {
		inner := value[1 : len(value)-1]
		if bytes.IndexByte(inner, '\\') < 0 && ascii(inner) {
			*dst = string(inner)
			return true
		}
	}
	return json.Unmarshal(value, dst) == nil
}

func ascii(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
