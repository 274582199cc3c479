package llm

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

func TestOpenAIComplete(t *testing.T) {
	msgs := []Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hello"}}
	tests := []struct {
		name        string
		key         string
		req         Request
		answer      string
		wantAuth    string
		wantRequest string
		want        Response
	}{
		{
			name:        "free text with key",
			key:         "sk-abc123",
			req:         Request{Model: "gpt-4o-mini", Temperature: 0.2, Messages: msgs},
			answer:      `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":"Hi."},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`,
			wantAuth:    "Bearer sk-abc123",
			wantRequest: `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hello"}],"temperature":0.2}`,
			want:        Response{Content: "Hi.", Model: "gpt-4o-mini-2024-07-18", Usage: Usage{PromptTokens: 12, CompletionTokens: 3}, ID: "chatcmpl-1"},
		},
		{
			name:        "json mode with max tokens and no key",
			req:         Request{Model: "local", Format: "json", MaxTokens: 64, Messages: msgs[1:]},
			answer:      `{"id":"x","object":"chat.completion","model":"local","choices":[{"index":0,"message":{"role":"assistant","content":"{\"ok\":true}"},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":64,"total_tokens":69}}`,
			wantRequest: `{"model":"local","messages":[{"role":"user","content":"hello"}],"temperature":0,"max_tokens":64,"response_format":{"type":"json_object"}}`,
			want:        Response{Content: `{"ok":true}`, Model: "local", Usage: Usage{PromptTokens: 5, CompletionTokens: 64}, ID: "x"},
		},
		{
			name:        "null content, no usage, no model",
			key:         "k",
			req:         Request{Model: "m", Messages: msgs[1:]},
			answer:      `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"stop"}]}`,
			wantAuth:    "Bearer k",
			wantRequest: `{"model":"m","messages":[{"role":"user","content":"hello"}],"temperature":0}`,
			want:        Response{Model: "m"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, reply(200, nil, tt.answer))
			p, err := NewOpenAI(ProviderConfig{Type: TypeOpenAI, BaseURL: srv.URL + "/v1"}, tt.key)
			if err != nil {
				t.Fatalf("NewOpenAI: %v", err)
			}
			got, err := p.Complete(t.Context(), tt.req)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			seen := srv.last()
			if seen.Method != "POST" || seen.Path != "/v1/chat/completions" || seen.ContentType != "application/json" {
				t.Fatalf("request %s %s (%s), want POST /v1/chat/completions (application/json)", seen.Method, seen.Path, seen.ContentType)
			}
			if _, present := seen.Header["Authorization"]; present != (tt.wantAuth != "") || seen.Header.Get("Authorization") != tt.wantAuth {
				t.Fatalf("Authorization = %q (present %v), want %q", seen.Header.Get("Authorization"), present, tt.wantAuth)
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

func TestOpenAIAnswerErrors(t *testing.T) {
	tests := []struct {
		name     string
		answer   string
		contains string
	}{
		{name: "empty choices", answer: `{"id":"x","object":"chat.completion","model":"m","choices":[]}`, contains: "no choices"},
		{name: "missing choices", answer: `{"id":"x","object":"chat.completion","model":"m"}`, contains: "no choices"},
		{name: "refusal", answer: `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`, contains: "I can't help"},
		{name: "wrong type", answer: `{"choices":{}}`, contains: "could not decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, reply(200, nil, tt.answer))
			p, err := NewOpenAI(ProviderConfig{BaseURL: srv.URL}, "")
			if err != nil {
				t.Fatalf("NewOpenAI: %v", err)
			}
			_, err = p.Complete(t.Context(), simpleRequest())
			if !errors.Is(err, ErrRejected) || errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), tt.contains) {
				t.Fatalf("err = %v, want ErrRejected containing %q", err, tt.contains)
			}
		})
	}
}

func TestOpenAIKeyNeverLeaks(t *testing.T) {
	const key = "sk-SECRET-0123456789abcdef"
	echo := func(status int, format string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			reply(status, map[string]string{"Retry-After": "1"}, fmt.Sprintf(format, r.Header.Get("Authorization")))(w, r)
		}
	}
	tests := []struct {
		name    string
		respond http.HandlerFunc
		wantErr error
	}{
		{name: "success", respond: reply(200, nil, `{"object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)},
		{name: "401 echoing the key", respond: echo(401, `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`), wantErr: ErrRejected},
		{name: "429 echoing the header", respond: echo(429, `{"error":{"message":"too many requests for %s"}}`), wantErr: ErrUnavailable},
		{name: "502 plain text echo", respond: echo(502, `upstream rejected header %s`), wantErr: ErrUnavailable},
		{name: "refusal echoing the key", respond: echo(200, `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"no %s"}}]}`), wantErr: ErrRejected},
		{name: "malformed json", respond: reply(200, nil, `{"choices":`), wantErr: ErrRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			srv := startServer(t, tt.respond)
			p, err := NewOpenAI(ProviderConfig{BaseURL: srv.URL}, key, WithLogger(logger))
			if err != nil {
				t.Fatalf("NewOpenAI: %v", err)
			}
			_, err = p.Complete(t.Context(), simpleRequest())
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got := srv.last().Header.Get("Authorization"); got != "Bearer "+key {
				t.Fatalf("server got Authorization %q, want the key", got)
			}
			if logs.Len() == 0 {
				t.Fatal("nothing was logged")
			}
			var texts []string
			if err != nil {
				texts = append(texts, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err))
				var herr *HTTPError
				if errors.As(err, &herr) {
					texts = append(texts, herr.Message)
				}
			}
			texts = append(texts, logs.String(), fmt.Sprint(p), fmt.Sprintf("%+v", p), fmt.Sprintf("%#v", p), fmt.Sprintf("%v", *p), fmt.Sprintf("%#v", *p))
			for _, s := range texts {
				if strings.Contains(s, key) || strings.Contains(s, "SECRET") {
					t.Fatalf("API key leaked in %q", s)
				}
			}
			if err != nil && tt.name != "malformed json" && !strings.Contains(err.Error(), redactedMark) {
				t.Fatalf("err = %q, want the echoed key replaced by %s", err, redactedMark)
			}
		})
	}
}

func TestNewOpenAI(t *testing.T) {
	tests := []struct {
		name    string
		cfg     ProviderConfig
		key     string
		wantURL string
		wantErr bool
	}{
		{name: "default url", cfg: ProviderConfig{}, key: "k", wantURL: "https://api.openai.com/v1/chat/completions"},
		{name: "local server", cfg: ProviderConfig{Type: TypeOpenAI, BaseURL: "http://localhost:8000/v1/"}, wantURL: "http://localhost:8000/v1/chat/completions"},
		{name: "wrong type", cfg: ProviderConfig{Type: TypeScripted}, wantErr: true},
		{name: "bad url", cfg: ProviderConfig{BaseURL: "localhost:8000"}, wantErr: true},
		{name: "key with newline", cfg: ProviderConfig{}, key: "sk-SECRET\n", wantErr: true},
		{name: "key with space", cfg: ProviderConfig{}, key: "sk SECRET", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewOpenAI(tt.cfg, tt.key)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidConfig) || p != nil {
					t.Fatalf("NewOpenAI = %v, %v; want nil and ErrInvalidConfig", p, err)
				}
				if strings.Contains(err.Error(), "SECRET") {
					t.Fatalf("err %q contains the key", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewOpenAI: %v", err)
			}
			if p.ep.url != tt.wantURL || p.String() != "openai("+tt.wantURL+")" {
				t.Fatalf("url = %q (%s), want %q", p.ep.url, p, tt.wantURL)
			}
		})
	}
}
