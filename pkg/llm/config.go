package llm

import (
	"errors"
	"fmt"
	"net/url"
	"time"
)

// Provider types.
const (
	TypeScripted = "scripted"
	TypeOllama   = "ollama"
	TypeOpenAI   = "openai"
)

// ProviderConfig configures one model provider.
type ProviderConfig struct {
	// Type is scripted, ollama or openai (any OpenAI-compatible server).
	Type string `json:"type"`
	// BaseURL is the server's base URL (ollama: http://127.0.0.1:11434,
	// openai: https://api.openai.com/v1 or a compatible server's /v1).
	BaseURL string `json:"baseUrl,omitempty"`
	// APIKeyEnv names the environment variable holding the API key; keys are
	// never written in configuration files.
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
	// Script is the script file of a scripted provider. Empty means the
	// bundled example script.
	Script string `json:"script,omitempty"`
	// TimeoutMS bounds one request. Default 120000.
	TimeoutMS int `json:"timeoutMs,omitempty"`
	// Stream asks an ollama or openai server to stream its answers; the
	// pieces are reported as they come to activity observers (live
	// progress). The answer is the same either way.
	Stream bool `json:"stream,omitempty"`
	// Pricing gives per-model prices (pricing.go); runs then have a cost.
	Pricing Pricing `json:"pricing,omitempty"`
}

// Timeout is TimeoutMS as a duration, with the default applied.
func (c ProviderConfig) Timeout() time.Duration {
	if c.TimeoutMS <= 0 {
		return 120 * time.Second
	}
	return time.Duration(c.TimeoutMS) * time.Millisecond
}

// Validate reports every problem, each wrapping ErrInvalidConfig.
func (c ProviderConfig) Validate() error {
	var errs []error
	switch c.Type {
	case TypeScripted:
	case TypeOllama, TypeOpenAI:
		if c.BaseURL != "" {
			u, err := url.Parse(c.BaseURL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				errs = append(errs, fmt.Errorf("%w: baseUrl %q is not an http(s) URL", ErrInvalidConfig, c.BaseURL))
			}
		}
	default:
		errs = append(errs, fmt.Errorf("%w: unknown provider type %q (want scripted, ollama or openai)", ErrInvalidConfig, c.Type))
	}
	if c.TimeoutMS < 0 {
		errs = append(errs, fmt.Errorf("%w: timeoutMs %d is negative", ErrInvalidConfig, c.TimeoutMS))
	}
	if err := c.Pricing.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
