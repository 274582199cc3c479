package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// DefaultOllamaURL is the base URL of a local Ollama server.
const DefaultOllamaURL = "http://127.0.0.1:11434"

// Ollama is a Provider speaking Ollama's native chat API (POST /api/chat,
// streamed when configured). It is safe for concurrent use.
type Ollama struct {
	ep endpoint
	// stream makes Complete stream (see ProviderConfig.Stream).
	stream bool
}

var _ Provider = (*Ollama)(nil)

// NewOllama returns an Ollama provider for c (BaseURL defaults to
// DefaultOllamaURL; each request is bounded by c.Timeout()). It returns an
// error wrapping ErrInvalidConfig when c is invalid or of another type.
func NewOllama(c ProviderConfig, opts ...HTTPOption) (*Ollama, error) {
	if err := checkHTTPConfig(c, TypeOllama); err != nil {
		return nil, fmt.Errorf("could not configure ollama provider: %w", err)
	}
	base := c.BaseURL
	if base == "" {
		base = DefaultOllamaURL
	}
	return &Ollama{stream: c.Stream, ep: endpoint{
		provider: TypeOllama,
		url:      joinURL(base, "/api/chat"),
		timeout:  c.Timeout(),
		settings: newHTTPSettings(opts),
	}}, nil
}

// ollamaChatRequest is the body of POST /api/chat.
type ollamaChatRequest struct {
	Model    string          `json:"model"`
	Messages []Message       `json:"messages"`
	Stream   bool            `json:"stream"`
	Format   json.RawMessage `json:"format,omitempty"`
	Options  ollamaOptions   `json:"options"`
}

// ollamaOptions are the model parameters of a chat request.
type ollamaOptions struct {
	Temperature float64 `json:"temperature"`
	NumPredict  int     `json:"num_predict,omitempty"`
}

// ollamaChatResponse is the answer of a non-streamed POST /api/chat.
type ollamaChatResponse struct {
	Model           string   `json:"model"`
	CreatedAt       string   `json:"created_at"`
	Message         *Message `json:"message"`
	Done            bool     `json:"done"`
	DoneReason      string   `json:"done_reason"`
	TotalDuration   int64    `json:"total_duration"`
	PromptEvalCount int      `json:"prompt_eval_count"`
	EvalCount       int      `json:"eval_count"`
	Error           string   `json:"error"`
}

// Complete sends req to /api/chat. Errors wrap ErrRejected for an invalid
// request (no model, no messages, unknown format), a 4xx answer such as an
// unknown model, or an unreadable answer; and ErrUnavailable for network
// errors, timeouts, cancellation, 408, 429 and 5xx (a *RetryAfterError when
// the server sent Retry-After with 429 or 503).
func (p *Ollama) Complete(ctx context.Context, req Request) (Response, error) {
	if err := validateRequest(TypeOllama, req); err != nil {
		return Response{}, err
	}
	body := ollamaChatRequest{
		Model:    req.Model,
		Messages: req.Messages,
		Format:   ollamaFormat(req),
		Options:  ollamaOptions{Temperature: req.Temperature, NumPredict: req.MaxTokens},
	}
	if p.stream {
		return p.completeStream(ctx, req, body)
	}
	start := time.Now()
	raw, err := p.ep.post(ctx, req.Model, body)
	if err != nil {
		return Response{}, err
	}
	var out ollamaChatResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		return Response{}, fmt.Errorf("could not decode ollama answer: %w: %w", ErrRejected, err)
	}
	if out.Error != "" {
		return Response{}, fmt.Errorf("ollama answered with an error: %w: %s", ErrRejected, p.ep.scrub(out.Error))
	}
	if out.Message == nil {
		return Response{}, fmt.Errorf("could not decode ollama answer: %w: no message", ErrRejected)
	}
	model := out.Model
	if model == "" {
		model = req.Model
	}
	return Response{
		Content:  out.Message.Content,
		Model:    model,
		Usage:    Usage{PromptTokens: out.PromptEvalCount, CompletionTokens: out.EvalCount},
		Duration: time.Since(start),
	}, nil
}

// String describes the provider.
func (p *Ollama) String() string { return "ollama(" + p.ep.url + ")" }

// ollamaFormat is the request's `format`: the JSON Schema when the request
// has one (Ollama constrains decoding to it; it has no grammar field, so
// "gbnf" sends the schema too), "json" for plain JSON mode, else nothing.
func ollamaFormat(req Request) json.RawMessage {
	switch {
	case req.Format == "":
		return nil
	case req.Schema != nil:
		return req.Schema.JSON()
	default:
		return json.RawMessage(`"json"`)
	}
}
