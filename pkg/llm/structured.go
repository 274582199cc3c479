package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrContract: the model's answer broke its contract (the schema, or the
// phase's own checks) even after the repair turn.
var ErrContract = errors.New("model answer broke its contract")

// ContractError is a contract failure: the answer of the repair turn still
// failed. It unwraps to ErrContract, ErrRejected (retrying the same
// request cannot help) and the last validation error.
type ContractError struct {
	// Schema is the schema's name.
	Schema string
	// Err is the last validation error.
	Err error
}

// Error gives the reason.
func (e *ContractError) Error() string {
	return fmt.Sprintf("%s: %s answer still invalid after a repair turn: %v", ErrContract, e.Schema, e.Err)
}

// Unwrap returns ErrContract, ErrRejected and the cause.
func (e *ContractError) Unwrap() []error { return []error{ErrContract, ErrRejected, e.Err} }

// Structured is the outcome of CompleteJSON.
type Structured struct {
	// JSON is the answer's JSON object, validated, with null members
	// removed (see Schema.Validate).
	JSON []byte
	// Calls are the model's responses, one per call (the first answer and
	// the repair turn's, if any), for usage accounting. Set on errors too.
	Calls []Response
	// Messages is the conversation including the accepted answer.
	Messages []Message
}

// CompleteJSON asks p for an answer satisfying req.Schema (required): it
// sends the request (Format defaults to "json"), extracts the JSON object
// of the answer, validates it against the schema and then with check (may
// be nil; for rules a schema cannot say). An invalid answer gets one repair
// turn carrying the validation errors; when that answer is invalid too it
// returns a *ContractError. Provider errors are returned as they are. The
// returned Structured holds the calls made even when err is not nil.
func CompleteJSON(ctx context.Context, p Provider, req Request, check func([]byte) error) (Structured, error) {
	if req.Schema == nil {
		return Structured{}, fmt.Errorf("%w: CompleteJSON needs a schema", ErrRejected)
	}
	if req.Format == "" {
		req.Format = FormatJSON
	}
	var out Structured
	msgs := append([]Message(nil), req.Messages...)
	for turn := 0; turn < 2; turn++ {
		req.Messages, req.Repair = msgs, turn > 0
		resp, err := p.Complete(ctx, req)
		if err != nil {
			return out, err
		}
		out.Calls = append(out.Calls, resp)
		msgs = append(msgs, Message{Role: "assistant", Content: resp.Content})
		doc, verr := accept(req.Schema, resp.Content, check)
		if verr == nil {
			out.JSON, out.Messages = doc, msgs
			return out, nil
		}
		if turn == 1 {
			out.Messages = msgs
			return out, &ContractError{Schema: req.Schema.Name(), Err: verr}
		}
		msgs = append(msgs, Message{Role: "user", Content: RepairPrompt(verr)})
	}
	panic("unreachable")
}

// accept extracts, validates and checks one answer.
func accept(s *Schema, answer string, check func([]byte) error) ([]byte, error) {
	raw, err := ExtractJSON(answer)
	if err != nil {
		return nil, &SchemaError{Schema: s.Name(), Problems: []string{"/: " + err.Error()}}
	}
	if err := s.Validate(raw); err != nil {
		return nil, err
	}
	doc := Normalize(raw)
	if check != nil {
		if err := check(doc); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// RepairPrompt is the repair turn's message: what was wrong, and the
// request to answer again with the JSON object only.
func RepairPrompt(err error) string {
	var b strings.Builder
	b.WriteString("Your answer does not satisfy the required format.\nProblems:\n")
	var se *SchemaError
	if errors.As(err, &se) {
		for _, p := range se.Problems {
			b.WriteString("- " + p + "\n")
		}
	} else {
		b.WriteString("- " + err.Error() + "\n")
	}
	b.WriteString("Answer again with only the corrected JSON object.")
	return b.String()
}
