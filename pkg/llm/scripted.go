package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Script is the content of a scripted provider's script file: the answers
// to give, by phase, attempt and step.
type Script struct {
	// Name describes the script.
	Name string `json:"name,omitempty"`
	// Responses are the scripted answers.
	Responses []ScriptedResponse `json:"responses"`
}

// ScriptedResponse is one scripted answer. A request matches it when the
// phase is equal, Attempt and Step are equal or 0 (any), Repair is false
// or the request is a repair turn, and Contains is empty or found in one
// of the request's messages. Among matches the most specific wins (one
// with Contains, then a repair answer, then attempt and step both set,
// then attempt, then step, then neither); ties go to the first in the
// file.
type ScriptedResponse struct {
	Phase   string `json:"phase"`
	Attempt int    `json:"attempt,omitempty"`
	Step    int    `json:"step,omitempty"`
	// Repair, when true, makes this the answer to the repair turn of its
	// phase, attempt and step (see CompleteJSON); other answers match
	// both the first turn and the repair turn.
	Repair bool `json:"repair,omitempty"`
	// Contains, when set, makes this answer match only requests with a
	// message containing this text (to script several runs in one file,
	// e.g. "Request:\nwrite done.txt").
	Contains string `json:"contains,omitempty"`
	// Content is the answer text. Exactly one of Content and JSON is set.
	Content string `json:"content,omitempty"`
	// JSON is an answer written as a JSON value, sent as its compact text.
	JSON json.RawMessage `json:"json,omitempty"`
}

// ParseScript decodes and validates a script. Unknown fields are errors, so
// typos in a script are caught when it is loaded, not mid-run.
func ParseScript(data []byte) (*Script, error) {
	var s Script
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: script: %w", ErrInvalidConfig, err)
	}
	var errs []error
	if len(s.Responses) == 0 {
		errs = append(errs, errors.New("script has no responses"))
	}
	for i, r := range s.Responses {
		if r.Phase == "" {
			errs = append(errs, fmt.Errorf("response %d: phase is required", i))
		}
		if r.Attempt < 0 || r.Step < 0 {
			errs = append(errs, fmt.Errorf("response %d: attempt and step must be >= 0", i))
		}
		if (r.Content == "") == (len(r.JSON) == 0) {
			errs = append(errs, fmt.Errorf("response %d (%s attempt %d step %d): exactly one of content and json is required", i, r.Phase, r.Attempt, r.Step))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("%w: script: %w", ErrInvalidConfig, err)
	}
	for i := range s.Responses {
		if len(s.Responses[i].JSON) > 0 {
			var buf bytes.Buffer
			if err := json.Compact(&buf, s.Responses[i].JSON); err != nil {
				return nil, fmt.Errorf("%w: script response %d: %w", ErrInvalidConfig, i, err)
			}
			s.Responses[i].Content = buf.String()
		}
	}
	return &s, nil
}

// LoadScript reads and parses a script file.
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: could not read script: %w", ErrInvalidConfig, err)
	}
	return ParseScript(data)
}

// Scripted is a Provider that answers from a Script. It is deterministic and
// safe for concurrent use (the script is never modified). It has no
// tokenizer: its usage counts whitespace-separated words of the prompt and
// the answer as tokens.
type Scripted struct {
	script *Script
}

// NewScripted returns a provider answering from s.
func NewScripted(s *Script) *Scripted { return &Scripted{script: s} }

// Complete returns the best-matching scripted answer, or an error wrapping
// ErrNoScriptedResponse and ErrRejected.
func (p *Scripted) Complete(ctx context.Context, req Request) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	best, bestScore := -1, -1
	for i, r := range p.script.Responses {
		if !strings.EqualFold(r.Phase, req.Phase) ||
			r.Attempt != 0 && r.Attempt != req.Attempt ||
			r.Step != 0 && r.Step != req.Step ||
			r.Repair && !req.Repair ||
			r.Contains != "" && !mentions(req.Messages, r.Contains) {
			continue
		}
		score := 0
		if r.Contains != "" {
			score += 8
		}
		if r.Repair {
			score += 4
		}
		if r.Attempt != 0 {
			score += 2
		}
		if r.Step != 0 {
			score++
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return Response{}, fmt.Errorf("%w: %w: phase %s attempt %d step %d", ErrRejected, ErrNoScriptedResponse, req.Phase, req.Attempt, req.Step)
	}
	content := p.script.Responses[best].Content
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(strings.Fields(m.Content))
	}
	return Response{Content: content, Model: "scripted", Duration: time.Microsecond,
		Usage: Usage{PromptTokens: prompt, CompletionTokens: len(strings.Fields(content))}}, nil
}

// mentions reports whether a message contains text.
func mentions(msgs []Message, text string) bool {
	for _, m := range msgs {
		if strings.Contains(m.Content, text) {
			return true
		}
	}
	return false
}
