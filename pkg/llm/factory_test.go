package llm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	bundled := &Script{Name: "bundled", Responses: []ScriptedResponse{{Phase: "critic", Content: "from bundled"}}}
	dir := t.TempDir()
	scriptPath := filepath.Join(dir, "script.json")
	if err := os.WriteFile(scriptPath, []byte(`{"responses":[{"phase":"critic","content":"from file"}]}`), 0o600); err != nil {
		t.Fatalf("write script: %v", err)
	}
	env := map[string]string{"CODALI_TEST_KEY": "sk-from-env", "CODALI_BLANK_KEY": "   ", "CODALI_SPACE_KEY": "sk SECRET"}
	getenv := func(k string) string { return env[k] }
	okOpenAI := `{"object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"from openai"},"finish_reason":"stop"}]}`
	okOllama := `{"model":"m","message":{"role":"assistant","content":"from ollama"},"done":true}`

	tests := []struct {
		name    string
		cfg     func(srvURL string) ProviderConfig
		bundled *Script
		answer  string
		// wantContent is the answer to a critic request; empty means New fails.
		wantContent string
		wantAuth    string
		wantErrText string
	}{
		{name: "scripted bundled", cfg: func(string) ProviderConfig { return ProviderConfig{Type: TypeScripted} }, bundled: bundled, wantContent: "from bundled"},
		{name: "scripted file wins over bundled", cfg: func(string) ProviderConfig { return ProviderConfig{Type: TypeScripted, Script: scriptPath} }, bundled: bundled, wantContent: "from file"},
		{name: "scripted missing file", cfg: func(string) ProviderConfig {
			return ProviderConfig{Type: TypeScripted, Script: filepath.Join(dir, "missing.json")}
		}, bundled: bundled, wantErrText: "could not read script"},
		{name: "scripted no script", cfg: func(string) ProviderConfig { return ProviderConfig{Type: TypeScripted} }, wantErrText: "no script"},
		{name: "ollama", cfg: func(u string) ProviderConfig { return ProviderConfig{Type: TypeOllama, BaseURL: u} }, answer: okOllama, wantContent: "from ollama"},
		{name: "openai with key from env", cfg: func(u string) ProviderConfig {
			return ProviderConfig{Type: TypeOpenAI, BaseURL: u, APIKeyEnv: "CODALI_TEST_KEY"}
		}, answer: okOpenAI, wantContent: "from openai", wantAuth: "Bearer sk-from-env"},
		{name: "openai local without key", cfg: func(u string) ProviderConfig { return ProviderConfig{Type: TypeOpenAI, BaseURL: u} }, answer: okOpenAI, wantContent: "from openai"},
		{name: "openai unset key variable", cfg: func(u string) ProviderConfig {
			return ProviderConfig{Type: TypeOpenAI, BaseURL: u, APIKeyEnv: "CODALI_UNSET_KEY"}
		}, wantErrText: "CODALI_UNSET_KEY"},
		{name: "openai blank key variable", cfg: func(u string) ProviderConfig {
			return ProviderConfig{Type: TypeOpenAI, BaseURL: u, APIKeyEnv: "CODALI_BLANK_KEY"}
		}, wantErrText: "CODALI_BLANK_KEY"},
		{name: "openai key with inner space", cfg: func(u string) ProviderConfig {
			return ProviderConfig{Type: TypeOpenAI, BaseURL: u, APIKeyEnv: "CODALI_SPACE_KEY"}
		}, wantErrText: "API key contains spaces"},
		{name: "openai default url without key", cfg: func(string) ProviderConfig { return ProviderConfig{Type: TypeOpenAI} }, wantErrText: "apiKeyEnv is required"},
		{name: "unknown type", cfg: func(string) ProviderConfig { return ProviderConfig{Type: "anthropic"} }, wantErrText: "unknown provider type"},
		{name: "empty type", cfg: func(string) ProviderConfig { return ProviderConfig{} }, wantErrText: "unknown provider type"},
		{name: "bad base url", cfg: func(string) ProviderConfig { return ProviderConfig{Type: TypeOllama, BaseURL: "not a url"} }, wantErrText: "not an http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, reply(200, nil, tt.answer))
			p, err := New(tt.cfg(srv.URL), getenv, tt.bundled)
			if tt.wantContent == "" {
				if !errors.Is(err, ErrInvalidConfig) || p != nil {
					t.Fatalf("New = %v, %v; want nil and ErrInvalidConfig", p, err)
				}
				if !strings.Contains(err.Error(), tt.wantErrText) || strings.Contains(err.Error(), "SECRET") {
					t.Fatalf("err = %q, want it to contain %q and no key", err, tt.wantErrText)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			resp, err := p.Complete(t.Context(), Request{Phase: "critic", Model: "m", Messages: []Message{{Role: "user", Content: "x"}}})
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Content != tt.wantContent {
				t.Fatalf("content = %q, want %q", resp.Content, tt.wantContent)
			}
			if got := srv.last().Header.Get("Authorization"); got != tt.wantAuth {
				t.Fatalf("Authorization = %q, want %q", got, tt.wantAuth)
			}
		})
	}
}

func TestNewDefaultGetenv(t *testing.T) {
	t.Setenv("CODALI_LLM_FACTORY_TEST_KEY", "sk-process-env")
	srv := startServer(t, reply(200, nil, `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"}}]}`))
	p, err := New(ProviderConfig{Type: TypeOpenAI, BaseURL: srv.URL, APIKeyEnv: "CODALI_LLM_FACTORY_TEST_KEY"}, nil, nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if _, err := p.Complete(t.Context(), simpleRequest()); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if got := srv.last().Header.Get("Authorization"); got != "Bearer sk-process-env" {
		t.Fatalf("Authorization = %q, want the process environment's key", got)
	}
}

func TestNewPassesHTTPOptions(t *testing.T) {
	srv := startServer(t, reply(200, nil, `{"model":"m","message":{"role":"assistant","content":"ok"},"done":true}`))
	p, err := New(ProviderConfig{Type: TypeOllama, BaseURL: srv.URL}, nil, nil, WithUserAgent("factory-test"))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if _, err := p.Complete(t.Context(), simpleRequest()); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if ua := srv.last().Header.Get("User-Agent"); ua != "factory-test" {
		t.Fatalf("User-Agent = %q, want factory-test", ua)
	}
}
