package events

import (
	"bytes"
	"encoding/json"
)

// marshal is json.Marshal(e), byte for byte. The data, the last member,
// is most of an event, and json.Marshal compacts it (dropping spaces,
// escaping <, >, & and U+2028/U+2029) with its state machine per byte;
// data that compaction would leave as it is, which is what json.Marshal
// writes, is appended to the encoding of the other members instead.
// TestMarshalAgreesWithJSON and FuzzMarshal compare the two.
func (e Envelope) marshal() ([]byte, error) {
	if len(e.Data) == 0 || !compactAsIs(e.Data) {
		return json.Marshal(e)
	}
	data := e.Data
	e.Data = nil // encoded as null, the last member
	head, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	const tail = `null}`
	if !bytes.HasSuffix(head, []byte(tail)) {
		return json.Marshal(e) // not reached: data is the last member
	}
	out := make([]byte, 0, len(head)-len(tail)+len(data)+1)
	out = append(out, head[:len(head)-len(tail)]...)
	out = append(out, data...)
	return append(out, '}'), nil
}

// compactAsIs reports whether data is valid JSON that json.Marshal's
// compaction of a json.RawMessage leaves unchanged: no space outside
// strings, no <, > or &, no U+2028 or U+2029.
func compactAsIs(data []byte) bool {
	inString := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '<', '>', '&':
			return false
		case 0xE2:
			if i+2 < len(data) && data[i+1] == 0x80 && data[i+2]&^1 == 0xA8 {
				return false
			}
		case ' ', '\t', '\n', '\r':
			if !inString {
				return false
			}
		case '\\':
			if inString {
				i++
			}
		case '"':
			inString = !inString
		}
	}
	return validJSON(data)
}
