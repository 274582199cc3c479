package llm

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
)

// Structured-output modes of an OpenAI-compatible server, from the
// strongest constraint to none.
const (
	// modeSchema: response_format json_schema (structured outputs).
	modeSchema = iota
	// modeObject: response_format json_object (JSON mode).
	modeObject
	// modePrompt: no response_format; the schema is put in the prompt.
	modePrompt
)

var modeNames = [...]string{"json_schema", "json_object", "prompt-only"}

// structuredMode remembers, per provider, the strongest structured-output
// mode the server accepted. It only ever weakens; each step is logged once.
type structuredMode struct {
	mu   sync.Mutex
	mode int
}

func (m *structuredMode) get() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mode
}

// weaken moves from the mode a refused request used to the next weaker
// one. It reports the mode to use now and whether this call made the step
// (and so should log it); concurrent refusals step only once.
func (m *structuredMode) weaken(from int) (int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mode > from {
		return m.mode, false
	}
	if m.mode < modePrompt {
		m.mode = from + 1
	}
	return m.mode, true
}

// send posts req, falling back from json_schema to json_object to
// prompt-only when the server refuses a response_format (HTTP 400 naming
// response_format or json_schema). The fallback is remembered for later
// requests and logged once per step.
func (p *OpenAI) send(ctx context.Context, req Request) ([]byte, error) {
	mode := p.mode.get()
	for {
		body := p.body(req, mode)
		raw, err := p.ep.post(ctx, req.Model, body)
		if err == nil || body.ResponseFormat == nil || !refusesResponseFormat(err) {
			return raw, err
		}
		next, stepped := p.mode.weaken(mode)
		if stepped {
			p.ep.settings.logger.LogAttrs(ctx, slog.LevelWarn, "model server refused the structured-output format; falling back",
				slog.String("provider", p.ep.provider), slog.String("url", p.ep.url), slog.String("model", req.Model),
				slog.String("refused", modeNames[mode]), slog.String("now", modeNames[next]), slog.Any("error", err))
		}
		if next == mode {
			return raw, err
		}
		mode = next
	}
}

// body builds the request body for a structured-output mode.
func (p *OpenAI) body(req Request, mode int) openAIChatRequest {
	body := openAIChatRequest{
		Model:       req.Model,
		Messages:    req.Messages,
		Temperature: req.Temperature,
		MaxTokens:   req.MaxTokens,
	}
	switch {
	case req.Format == "":
	case req.Format == FormatGBNF:
		// llama.cpp: a grammar generated from the schema, or the schema
		// itself when it has no grammar form.
		if g, err := req.Schema.GBNF(); err == nil {
			body.Grammar = g
		} else {
			body.JSONSchema = req.Schema.JSON()
		}
	case req.Schema != nil && mode == modeSchema:
		schema, strict := req.Schema.StrictJSON()
		body.ResponseFormat = &openAIResponseFormat{Type: "json_schema",
			JSONSchema: &openAIJSONSchema{Name: req.Schema.Name(), Schema: schema, Strict: strict}}
	case mode <= modeObject:
		body.ResponseFormat = &openAIResponseFormat{Type: "json_object"}
	}
	if req.Schema != nil && req.Format != "" && mode == modePrompt {
		body.Messages = withSchemaPrompt(req.Messages, req.Schema)
	}
	return body
}

// refusesResponseFormat reports whether err is the server refusing the
// response_format it was sent: a 400 whose message names it.
func refusesResponseFormat(err error) bool {
	var herr *HTTPError
	if !errors.As(err, &herr) || herr.StatusCode != http.StatusBadRequest {
		return false
	}
	msg := strings.ToLower(herr.Message)
	return strings.Contains(msg, "response_format") || strings.Contains(msg, "json_schema") || strings.Contains(msg, "json_object")
}

// withSchemaPrompt returns msgs with the schema added to the system message
// (or a new one in front), for servers that take no structured-output
// field.
func withSchemaPrompt(msgs []Message, s *Schema) []Message {
	note := "Your answer must be one JSON object valid against this JSON Schema:\n" + string(s.JSON())
	out := append([]Message(nil), msgs...)
	for i, m := range out {
		if m.Role == "system" {
			out[i].Content = m.Content + "\n\n" + note
			return out
		}
	}
	return append([]Message{{Role: "system", Content: note}}, out...)
}
