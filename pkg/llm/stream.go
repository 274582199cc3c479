package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/activity"
)

// stream POSTs payload and calls onLine with each line of a 2xx answer as
// it arrives (without its line ending), until the body ends or onLine
// returns done. Errors are classified as post's are; a body over the
// size limit is rejected. (The request is built as do builds it; the
// answer is read line by line instead of whole.)
func (e *endpoint) stream(ctx context.Context, model string, payload any, onLine func([]byte) (done bool, err error)) error {
	start := time.Now()
	status, err := e.streamDo(ctx, payload, onLine)
	e.settings.logger.LogAttrs(ctx, slog.LevelDebug, "llm request",
		slog.String("provider", e.provider), slog.String("url", e.url), slog.String("model", model),
		slog.Bool("stream", true), slog.Int("status", status), slog.Duration("duration", time.Since(start)), slog.Any("error", err))
	return err
}

func (e *endpoint) streamDo(ctx context.Context, payload any, onLine func([]byte) (bool, error)) (int, error) {
	data, err := json.Marshal(payload)
	if err != nil {
		return 0, fmt.Errorf("could not encode %s request: %w: %w", e.provider, ErrRejected, err)
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(data))
	if err != nil {
		return 0, fmt.Errorf("could not build %s request: %w: %w", e.provider, ErrRejected, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/x-ndjson, text/event-stream, application/json")
	req.Header.Set("User-Agent", e.settings.userAgent)
	if e.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.apiKey)
	}
	resp, err := e.settings.client.Do(req)
	if err != nil {
		return 0, e.transportError(ctx, "could not reach", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodyBytes))
		if rerr != nil && ctx.Err() != nil {
			return resp.StatusCode, e.transportError(ctx, "could not read error answer from", rerr)
		}
		return resp.StatusCode, e.statusError(resp, raw)
	}
	body := io.LimitReader(resp.Body, e.settings.maxBody+1)
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), int(min(e.settings.maxBody+1, 1<<30)))
	var read int64
	for sc.Scan() {
		line := sc.Bytes()
		read += int64(len(line)) + 1
		if read > e.settings.maxBody {
			return resp.StatusCode, fmt.Errorf("could not read answer from %s: %w: body exceeds %d bytes", e.provider, ErrRejected, e.settings.maxBody)
		}
		done, err := onLine(bytes.TrimSuffix(line, []byte("\r")))
		if err != nil || done {
			return resp.StatusCode, err
		}
	}
	if err := sc.Err(); err != nil {
		if ctx.Err() != nil {
			return resp.StatusCode, e.transportError(ctx, "could not read answer from", err)
		}
		return resp.StatusCode, fmt.Errorf("could not read answer from %s: %w: %w", e.provider, ErrUnavailable, err)
	}
	return resp.StatusCode, fmt.Errorf("could not read answer from %s: %w: the stream ended before the answer was complete", e.provider, ErrUnavailable)
}

// completeStream sends body with "stream": true and reads Ollama's
// newline-delimited JSON chunks, reporting each piece of the answer to the
// activity observers of ctx.
func (p *Ollama) completeStream(ctx context.Context, req Request, body ollamaChatRequest) (Response, error) {
	body.Stream = true
	start := time.Now()
	var content strings.Builder
	out := Response{Model: req.Model}
	err := p.ep.stream(ctx, req.Model, body, func(line []byte) (bool, error) {
		if len(bytes.TrimSpace(line)) == 0 {
			return false, nil
		}
		var chunk ollamaChatResponse
		if err := json.Unmarshal(line, &chunk); err != nil {
			return false, fmt.Errorf("could not decode ollama answer: %w: %w", ErrRejected, err)
		}
		if chunk.Error != "" {
			return false, fmt.Errorf("ollama answered with an error: %w: %s", ErrRejected, p.ep.scrub(chunk.Error))
		}
		if chunk.Message != nil && chunk.Message.Content != "" {
			content.WriteString(chunk.Message.Content)
			activity.Output(ctx, chunk.Message.Content)
		}
		if chunk.Model != "" {
			out.Model = chunk.Model
		}
		if chunk.Done {
			out.Usage = Usage{PromptTokens: chunk.PromptEvalCount, CompletionTokens: chunk.EvalCount}
		}
		return chunk.Done, nil
	})
	if err != nil {
		return Response{}, err
	}
	out.Content, out.Duration = content.String(), time.Since(start)
	return out, nil
}

// openAIStreamRequest is a chat request asking for a stream with usage.
type openAIStreamRequest struct {
	openAIChatRequest
	Stream        bool                `json:"stream"`
	StreamOptions openAIStreamOptions `json:"stream_options"`
}

type openAIStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// openAIChunk is one chat.completion.chunk of a stream.
type openAIChunk struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"delta"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// completeStream sends body with "stream": true and reads the server-sent
// events of chat.completion.chunk objects up to "data: [DONE]", reporting
// each piece of the answer to the activity observers of ctx.
func (p *OpenAI) completeStream(ctx context.Context, req Request, body openAIChatRequest) (Response, error) {
	start := time.Now()
	var content, refusal strings.Builder
	out := Response{Model: req.Model}
	sawChoice := false
	err := p.ep.stream(ctx, req.Model, openAIStreamRequest{openAIChatRequest: body, Stream: true, StreamOptions: openAIStreamOptions{IncludeUsage: true}},
		func(line []byte) (bool, error) {
			data, ok := bytes.CutPrefix(line, []byte("data:"))
			if !ok {
				return false, nil // blank lines, comments, event: and id: fields
			}
			data = bytes.TrimSpace(data)
			if string(data) == "[DONE]" {
				return true, nil
			}
			var chunk openAIChunk
			if err := json.Unmarshal(data, &chunk); err != nil {
				return false, fmt.Errorf("could not decode openai answer: %w: %w", ErrRejected, err)
			}
			if chunk.Error != nil {
				return false, fmt.Errorf("openai answered with an error: %w: %s", ErrRejected, p.ep.scrub(chunk.Error.Message))
			}
			if chunk.ID != "" {
				out.ID = chunk.ID
			}
			if chunk.Model != "" {
				out.Model = chunk.Model
			}
			if chunk.Usage != nil {
				out.Usage = Usage{PromptTokens: chunk.Usage.PromptTokens, CompletionTokens: chunk.Usage.CompletionTokens}
			}
			for _, c := range chunk.Choices[:min(len(chunk.Choices), 1)] {
				sawChoice = true
				if c.Delta.Content != nil && *c.Delta.Content != "" {
					content.WriteString(*c.Delta.Content)
					activity.Output(ctx, *c.Delta.Content)
				}
				if c.Delta.Refusal != nil {
					refusal.WriteString(*c.Delta.Refusal)
				}
			}
			return false, nil
		})
	if err != nil {
		return Response{}, err
	}
	if !sawChoice {
		return Response{}, fmt.Errorf("could not use openai answer: %w: no choices", ErrRejected)
	}
	if content.Len() == 0 && refusal.Len() > 0 {
		return Response{}, fmt.Errorf("could not use openai answer: %w: model refused: %s", ErrRejected, p.ep.scrub(refusal.String()))
	}
	out.Content, out.Duration = content.String(), time.Since(start)
	return out, nil
}
