package cognition

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ActDraft is one act proposed by the primary model, before Cortex resolves
// it against the act descriptor catalog. JSON shape:
//
//	{"act": "<descriptor name>", "args": { ... }}
//
// act is required and non-empty; args is optional and, when present, must be
// a JSON object. Decoded Args are stored in the canonical form json.Marshal
// writes (compact, with '<', '>' and '&' escaped as \u003c, \u003e, \u0026),
// so a draft whose Args are canonical survives an encode/decode round trip
// byte for byte. nil Args means no arguments and is omitted on encoding.
type ActDraft struct {
	Act  string          `json:"act"`
	Args json.RawMessage `json:"args,omitempty"`
}

// MarshalJSON encodes d. An empty Act or Args that is not a JSON object fails
// with ErrInvalidActDraft.
func (d ActDraft) MarshalJSON() ([]byte, error) {
	if err := d.check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidActDraft, err)
	}
	type plain ActDraft
	return json.Marshal(plain(d))
}

// UnmarshalJSON decodes an act draft strictly: "act" is required and
// non-empty (ErrMissingField), "args" must be an object if present
// (ErrInvalidField), no other field is allowed (ErrUnknownField). Every error
// also wraps ErrInvalidActDraft.
func (d *ActDraft) UnmarshalJSON(data []byte) error {
	out, err := decodeActDraft(data)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidActDraft, err)
	}
	*d = out
	return nil
}

func decodeActDraft(data []byte) (ActDraft, error) {
	f, err := decodeObject(data)
	if err != nil {
		return ActDraft{}, err
	}
	if err := f.onlyAllowed("act", "args"); err != nil {
		return ActDraft{}, err
	}
	var out ActDraft
	if out.Act, err = f.str("act"); err != nil {
		return ActDraft{}, err
	}
	if f.has("args") {
		// Re-encoding a RawMessage yields its canonical form: compact, with
		// '<', '>' and '&' escaped, exactly as json.Marshal writes it.
		canonical, err := json.Marshal(f["args"])
		if err != nil {
			return ActDraft{}, fmt.Errorf("%w: \"args\": %w", ErrInvalidField, err)
		}
		out.Args = canonical
	}
	if err := out.check(); err != nil {
		return ActDraft{}, err
	}
	return out, nil
}

// check enforces a non-empty act and object-valued args.
func (d ActDraft) check() error {
	if d.Act == "" {
		return fmt.Errorf("%w: \"act\" is empty", ErrMissingField)
	}
	if len(d.Args) > 0 {
		trimmed := bytes.TrimSpace(d.Args)
		if !json.Valid(trimmed) || trimmed[0] != '{' {
			return fmt.Errorf("%w: \"args\" must be a JSON object", ErrInvalidField)
		}
	}
	return nil
}
