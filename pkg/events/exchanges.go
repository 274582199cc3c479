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
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(e.Data, &obj); err != nil || obj == nil {
		return e, fmt.Errorf("%w: %s data is not a JSON object", ErrInvalidPayload, e.Type)
	}
	if _, ok := obj["exchanges"]; ok {
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
	if len(obj) > 0 {
		b.WriteByte(',')
	}
	b.WriteString(`"exchanges":`)
	b.Write(list)
	b.WriteByte('}')
	e.Data = b.Bytes()
	return e, nil
}
