package llm

import (
	"fmt"
	"os"
	"strings"
)

// New builds the Provider that c describes. getenv looks up the API key
// variable named by c.APIKeyEnv (nil means os.Getenv); bundled is the
// script a scripted provider uses when c.Script is empty; opts apply to the
// HTTP providers.
//
// It returns an error wrapping ErrInvalidConfig when c is invalid, when a
// scripted provider has neither a script file nor a bundled script, when
// the script cannot be loaded, when c.APIKeyEnv names an unset or empty
// variable (the error names the variable, never a value), or when an
// openai provider aimed at the default OpenAI URL has no c.APIKeyEnv.
func New(c ProviderConfig, getenv func(string) string, bundled *Script, opts ...HTTPOption) (Provider, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("could not create model provider: %w", err)
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	switch c.Type {
	case TypeScripted:
		return newScriptedFromConfig(c, bundled)
	case TypeOllama:
		p, err := NewOllama(c, opts...)
		if err != nil {
			return nil, err
		}
		return p, nil
	default: // TypeOpenAI; Validate rejected every other type.
		key := ""
		if c.APIKeyEnv != "" {
			key = strings.TrimSpace(getenv(c.APIKeyEnv))
			if key == "" {
				return nil, fmt.Errorf("could not create openai provider: %w: environment variable %s (apiKeyEnv) is unset or empty", ErrInvalidConfig, c.APIKeyEnv)
			}
		} else if c.BaseURL == "" {
			return nil, fmt.Errorf("could not create openai provider: %w: apiKeyEnv is required for %s (set baseUrl for a local server without a key)", ErrInvalidConfig, DefaultOpenAIURL)
		}
		p, err := NewOpenAI(c, key, opts...)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
}

// newScriptedFromConfig loads c.Script, or falls back to bundled.
func newScriptedFromConfig(c ProviderConfig, bundled *Script) (Provider, error) {
	if c.Script != "" {
		s, err := LoadScript(c.Script)
		if err != nil {
			return nil, fmt.Errorf("could not create scripted provider: %w", err)
		}
		return NewScripted(s), nil
	}
	if bundled == nil {
		return nil, fmt.Errorf("could not create scripted provider: %w: no script (set script to a script file)", ErrInvalidConfig)
	}
	return NewScripted(bundled), nil
}
