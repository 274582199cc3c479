package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// ErrNoJSON: a model answer holds no JSON object.
var ErrNoJSON = errors.New("no JSON object in model answer")

// ExtractJSON returns the first complete JSON object in a model answer,
// tolerating a Markdown code fence or prose around it. It returns an error
// wrapping ErrNoJSON when there is none.
func ExtractJSON(answer string) ([]byte, error) {
	s := strings.TrimSpace(answer)
	for start := strings.IndexByte(s, '{'); start >= 0; {
		dec := json.NewDecoder(strings.NewReader(s[start:]))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == nil && len(raw) > 0 && raw[0] == '{' {
			return bytes.TrimSpace(raw), nil
		}
		next := strings.IndexByte(s[start+1:], '{')
		if next < 0 {
			break
		}
		start += next + 1
	}
	return nil, ErrNoJSON
}
