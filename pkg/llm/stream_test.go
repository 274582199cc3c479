package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/codali-dev/codali/pkg/activity"
)

// pieces is an activity observer collecting streamed output.
type pieces struct {
	mu  sync.Mutex
	got []string
}

func (p *pieces) Begin(ctx context.Context, _ activity.Event) (context.Context, func(error)) {
	return ctx, func(error) {}
}

func (p *pieces) Output(_ context.Context, _ activity.Event, text string) {
	p.mu.Lock()
	p.got = append(p.got, text)
	p.mu.Unlock()
}

func observed(t *testing.T) (context.Context, *pieces) {
	t.Helper()
	obs := &pieces{}
	ctx := activity.WithObserver(context.Background(), obs)
	ctx, _ = activity.Begin(ctx, activity.Event{Kind: activity.Model, Name: "m"})
	return ctx, obs
}

func streamReq() Request {
	return Request{Model: "m", Format: "json", Messages: []Message{{Role: "user", Content: "hi"}}}
}

// streamServer answers every POST with the lines, flushing after each,
// and keeps the last request body.
func streamServer(t *testing.T, path, contentType string, lines []string, status int) (*httptest.Server, *map[string]any) {
	t.Helper()
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &body)
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		for _, l := range lines {
			fmt.Fprint(w, l)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &body
}

func TestOllamaStreams(t *testing.T) {
	lines := []string{
		`{"model":"m","created_at":"2026-11-24T00:00:00Z","message":{"role":"assistant","content":"{\"a\""},"done":false}` + "\n",
		`{"model":"m","created_at":"2026-11-24T00:00:00Z","message":{"role":"assistant","content":":1"},"done":false}` + "\n",
		`{"model":"m","created_at":"2026-11-24T00:00:00Z","message":{"role":"assistant","content":"}"},"done":false}` + "\n",
		`{"model":"m","created_at":"2026-11-24T00:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":7,"eval_count":3}` + "\n",
	}
	srv, body := streamServer(t, "/api/chat", "application/x-ndjson", lines, http.StatusOK)
	p, err := NewOllama(ProviderConfig{Type: TypeOllama, BaseURL: srv.URL, Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, obs := observed(t)
	resp, err := p.Complete(ctx, streamReq())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != `{"a":1}` || resp.Usage != (Usage{PromptTokens: 7, CompletionTokens: 3}) || resp.Model != "m" {
		t.Fatalf("response %+v", resp)
	}
	if want := []string{`{"a"`, ":1", "}"}; !reflect.DeepEqual(obs.got, want) {
		t.Fatalf("pieces %q, want %q", obs.got, want)
	}
	if (*body)["stream"] != true {
		t.Fatalf("request body %v", *body)
	}

	for _, tc := range []struct {
		name   string
		lines  []string
		status int
		is     error
	}{
		{"cut off", lines[:2], http.StatusOK, ErrUnavailable},
		{"error chunk", []string{`{"error":"model not found"}` + "\n"}, http.StatusOK, ErrRejected},
		{"bad json", []string{"{nope\n"}, http.StatusOK, ErrRejected},
		{"server error", nil, http.StatusInternalServerError, ErrUnavailable},
		{"not found", nil, http.StatusNotFound, ErrRejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := streamServer(t, "/api/chat", "application/x-ndjson", tc.lines, tc.status)
			p, _ := NewOllama(ProviderConfig{Type: TypeOllama, BaseURL: srv.URL, Stream: true})
			if _, err := p.Complete(context.Background(), streamReq()); !errors.Is(err, tc.is) {
				t.Fatalf("err = %v, want %v", err, tc.is)
			}
		})
	}
}

func TestOpenAIStreams(t *testing.T) {
	chunk := func(content string) string {
		return `data: {"id":"chatcmpl-42","object":"chat.completion.chunk","model":"gpt-x","choices":[{"index":0,"delta":{"content":` + fmt.Sprintf("%q", content) + `},"finish_reason":null}]}` + "\n\n"
	}
	lines := []string{
		": keep-alive\n\n",
		`data: {"id":"chatcmpl-42","object":"chat.completion.chunk","model":"gpt-x","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n",
		chunk("Hel"), chunk("lo"),
		`data: {"id":"chatcmpl-42","object":"chat.completion.chunk","model":"gpt-x","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n",
		`data: {"id":"chatcmpl-42","object":"chat.completion.chunk","model":"gpt-x","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}` + "\n\n",
		"data: [DONE]\n\n",
	}
	srv, body := streamServer(t, "/v1/chat/completions", "text/event-stream", lines, http.StatusOK)
	p, err := NewOpenAI(ProviderConfig{Type: TypeOpenAI, BaseURL: srv.URL + "/v1", Stream: true}, "sk-test")
	if err != nil {
		t.Fatal(err)
	}
	ctx, obs := observed(t)
	resp, err := p.Complete(ctx, streamReq())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "Hello" || resp.ID != "chatcmpl-42" || resp.Model != "gpt-x" || resp.Usage != (Usage{PromptTokens: 9, CompletionTokens: 2}) {
		t.Fatalf("response %+v", resp)
	}
	if want := []string{"Hel", "lo"}; !reflect.DeepEqual(obs.got, want) {
		t.Fatalf("pieces %q, want %q", obs.got, want)
	}
	so, _ := (*body)["stream_options"].(map[string]any)
	if (*body)["stream"] != true || so["include_usage"] != true || (*body)["response_format"] == nil {
		t.Fatalf("request body %v", *body)
	}

	for _, tc := range []struct {
		name  string
		lines []string
		is    error
	}{
		{"no done", lines[:4], ErrUnavailable},
		{"error event", []string{`data: {"error":{"message":"rate limited"}}` + "\n\n"}, ErrRejected},
		{"no choices", []string{"data: [DONE]\n\n"}, ErrRejected},
		{"refusal", []string{`data: {"id":"x","choices":[{"delta":{"refusal":"no"}}]}` + "\n\n", "data: [DONE]\n\n"}, ErrRejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := streamServer(t, "/v1/chat/completions", "text/event-stream", tc.lines, http.StatusOK)
			p, _ := NewOpenAI(ProviderConfig{Type: TypeOpenAI, BaseURL: srv.URL + "/v1", Stream: true}, "sk-test")
			_, err := p.Complete(context.Background(), streamReq())
			if !errors.Is(err, tc.is) || strings.Contains(fmt.Sprint(err), "sk-test") {
				t.Fatalf("err = %v, want %v", err, tc.is)
			}
		})
	}
}
