package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// DefaultOpenAIURL is the base URL of the OpenAI API.
const DefaultOpenAIURL = "https://api.openai.com/v1"

// OpenAI is a Provider speaking the OpenAI Chat Completions API (POST
// {base}/chat/completions), as served by OpenAI and compatible servers
// (vLLM, llama.cpp, LM Studio, …). It is safe for concurrent use. Its
// API key never appears in errors, logs or its formatted value.
type OpenAI struct {
	ep endpoint
	// mode is the structured-output mode the server is known to accept
	// (modeSchema until a refusal says otherwise); shared by all calls.
	mode *structuredMode
	// stream makes Complete stream (see ProviderConfig.Stream).
	stream bool
}

var _ Provider = (*OpenAI)(nil)

// NewOpenAI returns an OpenAI-compatible provider for c (BaseURL defaults
// to DefaultOpenAIURL; each request is bounded by c.Timeout()). apiKey is
// sent as a bearer token; an empty key sends no Authorization header (for
// local servers). It returns an error wrapping ErrInvalidConfig when c is
// invalid or of another type, or when apiKey holds spaces or control
// characters.
func NewOpenAI(c ProviderConfig, apiKey string, opts ...HTTPOption) (*OpenAI, error) {
	if err := checkHTTPConfig(c, TypeOpenAI); err != nil {
		return nil, fmt.Errorf("could not configure openai provider: %w", err)
	}
	if strings.ContainsFunc(apiKey, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return nil, fmt.Errorf("could not configure openai provider: %w: API key contains spaces or control characters", ErrInvalidConfig)
	}
	base := c.BaseURL
	if base == "" {
		base = DefaultOpenAIURL
	}
	return &OpenAI{stream: c.Stream, ep: endpoint{
		provider: TypeOpenAI,
		url:      joinURL(base, "/chat/completions"),
		timeout:  c.Timeout(),
		apiKey:   apiKey,
		settings: newHTTPSettings(opts),
	}, mode: &structuredMode{}}, nil
}

// openAIChatRequest is the body of POST /chat/completions.
type openAIChatRequest struct {
	Model          string                `json:"model"`
	Messages       []Message             `json:"messages"`
	Temperature    float64               `json:"temperature"`
	MaxTokens      int                   `json:"max_tokens,omitempty"`
	ResponseFormat *openAIResponseFormat `json:"response_format,omitempty"`
	// Grammar is llama.cpp's GBNF constraint (format gbnf).
	Grammar string `json:"grammar,omitempty"`
	// JSONSchema is llama.cpp's schema constraint, sent with format gbnf
	// when the schema has no grammar form.
	JSONSchema json.RawMessage `json:"json_schema,omitempty"`
}

// openAIResponseFormat asks for JSON mode or structured outputs.
type openAIResponseFormat struct {
	Type       string            `json:"type"`
	JSONSchema *openAIJSONSchema `json:"json_schema,omitempty"`
}

// openAIJSONSchema is response_format.json_schema.
type openAIJSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

// openAIChatResponse is a chat.completion object.
type openAIChatResponse struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Role    string  `json:"role"`
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

// Complete sends req to /chat/completions and returns the first choice.
// Errors wrap ErrRejected for an invalid request (no model, no messages,
// unknown format), a 4xx answer (bad key, unknown model), an unreadable
// answer, no choices or a refusal; and ErrUnavailable for network errors,
// timeouts, cancellation, 408, 429 and 5xx (a *RetryAfterError when the
// server sent Retry-After with 429 or 503).
func (p *OpenAI) Complete(ctx context.Context, req Request) (Response, error) {
	if err := validateRequest(TypeOpenAI, req); err != nil {
		return Response{}, err
	}
	if p.stream {
		// Streaming uses the structured-output mode known to work; a refusal
		// while streaming is returned as it is.
		return p.completeStream(ctx, req, p.body(req, p.mode.get()))
	}
	start := time.Now()
	raw, err := p.send(ctx, req)
	if err != nil {
		return Response{}, err
	}
	var out openAIChatResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		return Response{}, fmt.Errorf("could not decode openai answer: %w: %w", ErrRejected, err)
	}
	if len(out.Choices) == 0 {
		return Response{}, fmt.Errorf("could not use openai answer: %w: no choices", ErrRejected)
	}
	msg := out.Choices[0].Message
	content := ""
	if msg.Content != nil {
		content = *msg.Content
	}
	if content == "" && msg.Refusal != nil && *msg.Refusal != "" {
		return Response{}, fmt.Errorf("could not use openai answer: %w: model refused: %s", ErrRejected, p.ep.scrub(*msg.Refusal))
	}
	model := out.Model
	if model == "" {
		model = req.Model
	}
	return Response{
		Content:  content,
		Model:    model,
		Usage:    Usage{PromptTokens: out.Usage.PromptTokens, CompletionTokens: out.Usage.CompletionTokens},
		Duration: time.Since(start),
		ID:       out.ID,
	}, nil
}

// String describes the provider without its API key.
func (p OpenAI) String() string { return "openai(" + p.ep.url + ")" }

// GoString describes the provider for %#v without its API key.
func (p OpenAI) GoString() string { return "llm.OpenAI{url: " + p.ep.url + "}" }
