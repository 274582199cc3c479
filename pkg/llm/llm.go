// Package llm is Codali's model layer: one Provider interface, a factory
// from configuration, and the providers — scripted (deterministic answers
// from a script file, for demos and tests), ollama and openai-compatible.
package llm

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Message is one chat message.
type Message struct {
	// Role is "system", "user" or "assistant".
	Role string `json:"role"`
	// Content is the message text.
	Content string `json:"content"`
}

// Request is one completion request.
type Request struct {
	// Phase is the pipeline phase asking (librarian, architect, builder,
	// critic); the scripted provider answers by phase.
	Phase string
	// RunID, Attempt and Step identify the call within a run; Step counts
	// the builder's tool-loop turns from 1 (0 for single-shot phases).
	RunID   string
	Attempt int
	Step    int
	// Model is the model name; HTTP providers require it.
	Model string
	// Temperature is the sampling temperature.
	Temperature float64
	// Format is "" for free text, "json" for a JSON object (constrained by
	// Schema when set) or "gbnf" for a JSON object constrained by a grammar
	// generated from Schema (llama.cpp servers; other servers get the
	// schema itself).
	Format string
	// Schema, when set, is the JSON Schema the answer must satisfy; the
	// provider sends it in its server's structured-output field.
	Schema *Schema
	// Repair marks the turn that asks the model to fix an answer that
	// failed its schema (see CompleteJSON).
	Repair bool
	// MaxTokens bounds the answer; 0 leaves it to the provider.
	MaxTokens int
	// Messages is the conversation so far.
	Messages []Message
}

// Usage counts tokens of one completion, when the provider reports them.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Response is a completion.
type Response struct {
	// Content is the model's answer.
	Content string
	// Model is the model that answered.
	Model string
	// Usage counts tokens.
	Usage Usage
	// Duration is how long the call took.
	Duration time.Duration
	// ID is the server's id of the response, when it gives one (OpenAI).
	ID string
}

// Provider completes chat requests. Implementations are safe for concurrent
// use. Errors wrap ErrUnavailable when a retry may succeed (network error,
// timeout, HTTP 429 or 5xx) and ErrRejected when it cannot (bad request,
// authentication, unknown model, no scripted answer).
type Provider interface {
	Complete(ctx context.Context, req Request) (Response, error)
}

// Sentinel errors.
var (
	// ErrUnavailable: transient failure; retrying later may succeed.
	ErrUnavailable = errors.New("model unavailable")
	// ErrRejected: the request cannot succeed as it is.
	ErrRejected = errors.New("model request rejected")
	// ErrNoScriptedResponse: the script has no answer for the request.
	ErrNoScriptedResponse = errors.New("no scripted response")
	// ErrInvalidConfig: provider configuration is invalid.
	ErrInvalidConfig = errors.New("invalid model provider configuration")
)

// RetryAfterError is a transient error that says when to retry (HTTP 429
// with Retry-After). It wraps ErrUnavailable.
type RetryAfterError struct {
	// After is how long the server asked to wait.
	After time.Duration
	// Err is the underlying error.
	Err error
}

func (e *RetryAfterError) Error() string {
	return fmt.Sprintf("%v (retry after %s)", e.Err, e.After)
}

// Unwrap returns ErrUnavailable and the cause.
func (e *RetryAfterError) Unwrap() []error { return []error{ErrUnavailable, e.Err} }

// RetryAfter says how long the server asked to wait; the worker runtime
// delays the redelivery at least that long.
func (e *RetryAfterError) RetryAfter() time.Duration { return e.After }

// Request formats.
const (
	// FormatJSON asks for a JSON object, constrained by the request's
	// Schema when it has one.
	FormatJSON = "json"
	// FormatGBNF asks llama.cpp servers to constrain the answer with a
	// GBNF grammar generated from the request's Schema.
	FormatGBNF = "gbnf"
)
