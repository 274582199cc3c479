package llm

import (
	"errors"
	"strings"
	"testing"
)

func TestOllamaComplete(t *testing.T) {
	msgs := []Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hello"}}
	tests := []struct {
		name        string
		req         Request
		answer      string
		wantRequest string
		want        Response
	}{
		{
			name:        "free text",
			req:         Request{Model: "llama3.2", Temperature: 0.2, Messages: msgs},
			answer:      `{"model":"llama3.2","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"Hi."},"done":true,"done_reason":"stop","total_duration":123,"load_duration":1,"prompt_eval_count":12,"prompt_eval_duration":2,"eval_count":3,"eval_duration":4}`,
			wantRequest: `{"model":"llama3.2","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hello"}],"stream":false,"options":{"temperature":0.2}}`,
			want:        Response{Content: "Hi.", Model: "llama3.2", Usage: Usage{PromptTokens: 12, CompletionTokens: 3}},
		},
		{
			name:        "json mode with max tokens",
			req:         Request{Model: "qwen2.5-coder:7b", Format: "json", MaxTokens: 256, Messages: msgs[1:]},
			answer:      `{"model":"qwen2.5-coder:7b","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"{\"ok\":true}"},"done":true,"done_reason":"stop","prompt_eval_count":5,"eval_count":6}`,
			wantRequest: `{"model":"qwen2.5-coder:7b","messages":[{"role":"user","content":"hello"}],"stream":false,"format":"json","options":{"temperature":0,"num_predict":256}}`,
			want:        Response{Content: `{"ok":true}`, Model: "qwen2.5-coder:7b", Usage: Usage{PromptTokens: 5, CompletionTokens: 6}},
		},
		{
			name:        "model missing from answer",
			req:         Request{Model: "m", Temperature: 1, Messages: msgs[1:]},
			answer:      `{"message":{"role":"assistant","content":""},"done":true}`,
			wantRequest: `{"model":"m","messages":[{"role":"user","content":"hello"}],"stream":false,"options":{"temperature":1}}`,
			want:        Response{Content: "", Model: "m"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, reply(200, nil, tt.answer))
			p, err := NewOllama(ProviderConfig{Type: TypeOllama, BaseURL: srv.URL})
			if err != nil {
				t.Fatalf("NewOllama: %v", err)
			}
			got, err := p.Complete(t.Context(), tt.req)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			seen := srv.last()
			if seen.Method != "POST" || seen.Path != "/api/chat" || seen.ContentType != "application/json" {
				t.Fatalf("request %s %s (%s), want POST /api/chat (application/json)", seen.Method, seen.Path, seen.ContentType)
			}
			if h := seen.Header.Get("Authorization"); h != "" {
				t.Fatalf("Authorization = %q, want none", h)
			}
			assertJSONEqual(t, seen.Body, tt.wantRequest)
			if got.Duration <= 0 {
				t.Fatalf("Duration = %v, want > 0", got.Duration)
			}
			got.Duration = 0
			if got != tt.want {
				t.Fatalf("Complete = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestOllamaAnswerErrors(t *testing.T) {
	tests := []struct {
		name     string
		answer   string
		contains string
	}{
		{name: "error in 200 body", answer: `{"error":"unexpected EOF"}`, contains: "unexpected EOF"},
		{name: "no message", answer: `{"model":"m","done":true}`, contains: "no message"},
		{name: "wrong type", answer: `{"model":"m","message":"hi"}`, contains: "could not decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, reply(200, nil, tt.answer))
			p, err := NewOllama(ProviderConfig{BaseURL: srv.URL})
			if err != nil {
				t.Fatalf("NewOllama: %v", err)
			}
			_, err = p.Complete(t.Context(), simpleRequest())
			if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), tt.contains) {
				t.Fatalf("err = %v, want ErrRejected containing %q", err, tt.contains)
			}
		})
	}
}

func TestNewOllama(t *testing.T) {
	tests := []struct {
		name    string
		cfg     ProviderConfig
		wantURL string
		wantErr bool
	}{
		{name: "default url", cfg: ProviderConfig{}, wantURL: "http://127.0.0.1:11434/api/chat"},
		{name: "explicit type and url", cfg: ProviderConfig{Type: TypeOllama, BaseURL: "http://gpu:11434/"}, wantURL: "http://gpu:11434/api/chat"},
		{name: "wrong type", cfg: ProviderConfig{Type: TypeOpenAI}, wantErr: true},
		{name: "bad url", cfg: ProviderConfig{BaseURL: "ftp://x"}, wantErr: true},
		{name: "negative timeout", cfg: ProviderConfig{TimeoutMS: -1}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewOllama(tt.cfg)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidConfig) || p != nil {
					t.Fatalf("NewOllama = %v, %v; want nil and ErrInvalidConfig", p, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewOllama: %v", err)
			}
			if p.ep.url != tt.wantURL || p.String() != "ollama("+tt.wantURL+")" {
				t.Fatalf("url = %q (%s), want %q", p.ep.url, p, tt.wantURL)
			}
		})
	}
}
