package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrHasExchanges: the event's data already has exchanges.
var ErrHasExchanges = errors.New("data already has exchanges")

// WithExchanges returns e with refs added to its data under "exchanges"
// (the Exchanges field of every phase payload). The data's other bytes are
// kept as they are. It returns e unchanged when refs is empty, and an error
// wrapping ErrInvalidPayload when the data is not a JSON object or already
// has exchanges (then also ErrHasExchanges).
func WithExchanges(e Envelope, refs []ExchangeRef) (Envelope, error) {
	if len(refs) == 0 {
		return e, nil
	}
	members, has, ok := exchangesOf(e.Data)
	if !ok {
		return e, fmt.Errorf("%w: %s data is not a JSON object", ErrInvalidPayload, e.Type)
	}
	if has {
		return e, fmt.Errorf("%w: %s %w", ErrInvalidPayload, e.Type, ErrHasExchanges)
	}
	list, err := json.Marshal(refs)
	if err != nil {
		return e, fmt.Errorf("%w: exchanges: %w", ErrInvalidPayload, err)
	}
	data := bytes.TrimRight(e.Data, " \t\r\n")
	var b bytes.Buffer
	b.Grow(len(data) + len(list) + 16)
	b.Write(data[:len(data)-1])
	if members {
		b.WriteByte(',')
	}
	b.WriteString(`"exchanges":`)
	b.Write(list)
	b.WriteByte('}')
	e.Data = b.Bytes()
	return e, nil
}

// exchangesOf reports whether data is a JSON object (ok), whether it has
// members and whether one of them is "exchanges". It scans the object's
// members instead of decoding them, unless a key has an escape (one that
// unescapes to "exchanges" counts): then the data is decoded into a map.
func exchangesOf(data []byte) (members, has, ok bool) {
	if !validJSON(data) {
		return false, false, false
	}
	escaped := false
	ok = topMembers(data, func(key, _ []byte) bool {
		members = true
		has = has || string(key) == "exchanges"
		escaped = bytes.IndexByte(key, '\\') >= 0
		return !escaped
	})
	if !escaped {
		return members, has, ok
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return false, false, false
	}
	_, has = obj["exchanges"]
	return len(obj) > 0, has, true
}
