package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DefaultMaxResponseBytes bounds the body of a model server's answer unless
// WithMaxResponseBytes says otherwise.
const DefaultMaxResponseBytes int64 = 8 << 20

// maxErrorMessageBytes bounds the server message kept in an error.
const maxErrorMessageBytes = 512

// maxErrorBodyBytes bounds how much of an error answer is read.
const maxErrorBodyBytes int64 = 64 << 10

// defaultUserAgent is sent unless WithUserAgent says otherwise.
const defaultUserAgent = "codali-llm"

// redactedMark replaces secrets in server messages.
const redactedMark = "[REDACTED]"

// HTTPOption adjusts an HTTP-based provider (Ollama, OpenAI).
type HTTPOption func(*httpSettings)

type httpSettings struct {
	client    *http.Client
	userAgent string
	maxBody   int64
	logger    *slog.Logger
}

func newHTTPSettings(opts []HTTPOption) httpSettings {
	s := httpSettings{
		client:    &http.Client{},
		userAgent: defaultUserAgent,
		maxBody:   DefaultMaxResponseBytes,
		logger:    slog.New(slog.DiscardHandler),
	}
	for _, o := range opts {
		if o != nil {
			o(&s)
		}
	}
	return s
}

// WithHTTPClient makes the provider send its requests with c (for proxies,
// TLS settings or tests). A nil client is ignored. The per-request timeout
// of the provider configuration applies in addition to c.Timeout.
func WithHTTPClient(c *http.Client) HTTPOption {
	return func(s *httpSettings) {
		if c != nil {
			s.client = c
		}
	}
}

// WithUserAgent sets the User-Agent header; an empty value is ignored.
func WithUserAgent(ua string) HTTPOption {
	return func(s *httpSettings) {
		if ua != "" {
			s.userAgent = ua
		}
	}
}

// WithMaxResponseBytes bounds the size of a successful answer's body; a
// larger body fails the request with an error wrapping ErrRejected. Values
// <= 0 are ignored (DefaultMaxResponseBytes applies).
func WithMaxResponseBytes(n int64) HTTPOption {
	return func(s *httpSettings) {
		if n > 0 {
			s.maxBody = n
		}
	}
}

// WithLogger makes the provider log each request at debug level (provider,
// URL, model, status, duration and error; never headers or API keys). A nil
// logger is ignored; by default nothing is logged.
func WithLogger(l *slog.Logger) HTTPOption {
	return func(s *httpSettings) {
		if l != nil {
			s.logger = l
		}
	}
}

// HTTPError is a non-success HTTP answer from a model server. It unwraps to
// ErrUnavailable for 408, 429 and 5xx and to ErrRejected otherwise. Message
// is the server's message, truncated and with the API key removed.
type HTTPError struct {
	// Provider is "ollama" or "openai".
	Provider string
	// StatusCode is the HTTP status.
	StatusCode int
	// Message is what the server said.
	Message string
}

// Error describes the answer.
func (e *HTTPError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.StatusCode, msg)
}

// Unwrap returns ErrUnavailable when a retry may succeed, else ErrRejected.
func (e *HTTPError) Unwrap() error {
	if transientStatus(e.StatusCode) {
		return ErrUnavailable
	}
	return ErrRejected
}

// transientStatus reports whether an HTTP status is worth retrying.
func transientStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500
}

// endpoint is one JSON-over-HTTP model API: where to POST, how long to
// wait, and the secret to send and keep out of errors and logs.
type endpoint struct {
	provider string
	url      string
	timeout  time.Duration
	apiKey   string
	settings httpSettings
}

// post sends payload as JSON and returns the body of a 2xx answer. Errors
// wrap ErrUnavailable (network, timeout, cancellation, 408/429/5xx, with a
// *RetryAfterError when the server said when to retry) or ErrRejected
// (other statuses, oversize body, unencodable payload).
func (e *endpoint) post(ctx context.Context, model string, payload any) ([]byte, error) {
	start := time.Now()
	body, status, err := e.do(ctx, payload)
	e.settings.logger.LogAttrs(ctx, slog.LevelDebug, "llm request",
		slog.String("provider", e.provider),
		slog.String("url", e.url),
		slog.String("model", model),
		slog.Int("status", status),
		slog.Duration("duration", time.Since(start)),
		slog.Any("error", err),
	)
	return body, err
}

func (e *endpoint) do(ctx context.Context, payload any) ([]byte, int, error) {
	data, err := json.Marshal(payload)
	if err != nil {
		return nil, 0, fmt.Errorf("could not encode %s request: %w: %w", e.provider, ErrRejected, err)
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(data))
	if err != nil {
		return nil, 0, fmt.Errorf("could not build %s request: %w: %w", e.provider, ErrRejected, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", e.settings.userAgent)
	if e.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.apiKey)
	}
	resp, err := e.settings.client.Do(req)
	if err != nil {
		return nil, 0, e.transportError(ctx, "could not reach", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodyBytes))
		if rerr != nil && ctx.Err() != nil {
			return nil, resp.StatusCode, e.transportError(ctx, "could not read error answer from", rerr)
		}
		return nil, resp.StatusCode, e.statusError(resp, raw)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, e.settings.maxBody+1))
	if err != nil {
		return nil, resp.StatusCode, e.transportError(ctx, "could not read answer from", err)
	}
	if int64(len(raw)) > e.settings.maxBody {
		return nil, resp.StatusCode, fmt.Errorf("could not read answer from %s: %w: body exceeds %d bytes", e.provider, ErrRejected, e.settings.maxBody)
	}
	return raw, resp.StatusCode, nil
}

// transportError classifies a failure to exchange a request: it is always
// transient; a timeout or cancellation says so.
func (e *endpoint) transportError(ctx context.Context, what string, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%s %s: %w: request timed out (limit %s): %w", what, e.provider, ErrUnavailable, e.timeout, e.scrubErr(err))
	case ctx.Err() != nil:
		return fmt.Errorf("%s %s: %w: %w", what, e.provider, ErrUnavailable, ctx.Err())
	default:
		return fmt.Errorf("%s %s: %w: %w", what, e.provider, ErrUnavailable, e.scrubErr(err))
	}
}

// statusError turns a non-2xx answer into an *HTTPError, wrapped in a
// *RetryAfterError for 429 and 503 with a usable Retry-After header.
func (e *endpoint) statusError(resp *http.Response, raw []byte) error {
	herr := &HTTPError{
		Provider:   e.provider,
		StatusCode: resp.StatusCode,
		Message:    e.scrub(serverMessage(raw)),
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return &RetryAfterError{After: d, Err: herr}
		}
	}
	return herr
}

// scrub removes the API key from s and truncates it.
func (e *endpoint) scrub(s string) string {
	if e.apiKey != "" {
		s = strings.ReplaceAll(s, e.apiKey, redactedMark)
	}
	return truncate(s, maxErrorMessageBytes)
}

// scrubErr returns err unchanged unless its text holds the API key; then a
// redacted error that still matches the original with errors.Is and As.
func (e *endpoint) scrubErr(err error) error {
	if e.apiKey == "" || !strings.Contains(err.Error(), e.apiKey) {
		return err
	}
	return &redactedError{msg: strings.ReplaceAll(err.Error(), e.apiKey, redactedMark), err: err}
}

// redactedError hides a secret in its cause's text.
type redactedError struct {
	msg string
	err error
}

func (r *redactedError) Error() string { return r.msg }
func (r *redactedError) Unwrap() error { return r.err }

// serverMessage extracts the message of an error body: {"error":"..."}
// (Ollama), {"error":{"message":"...","code":"..."}} (OpenAI), {"message"}
// or {"detail"} (other compatible servers), else the text itself.
func serverMessage(raw []byte) string {
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if err := json.Unmarshal(raw, &body); err == nil {
		var s string
		if json.Unmarshal(body.Error, &s) == nil && s != "" {
			return s
		}
		var obj struct {
			Message string          `json:"message"`
			Code    json.RawMessage `json:"code"`
		}
		if json.Unmarshal(body.Error, &obj) == nil && obj.Message != "" {
			var code string
			if json.Unmarshal(obj.Code, &code) == nil && code != "" {
				return obj.Message + " (" + code + ")"
			}
			return obj.Message
		}
		if body.Message != "" {
			return body.Message
		}
		if json.Unmarshal(body.Detail, &s) == nil && s != "" {
			return s
		}
	}
	return strings.TrimSpace(string(raw))
}

// truncate shortens s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// parseRetryAfter reads a Retry-After header: delay seconds or an HTTP
// date. A date in the past means 0. It reports false when v is unusable.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 || secs > int64(maxRetryAfter/time.Second) {
			return 0, false
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	if d < 0 {
		d = 0
	}
	if d > maxRetryAfter {
		return 0, false
	}
	return d, true
}

// maxRetryAfter is the longest Retry-After taken at its word; longer
// values are treated as absent (plain ErrUnavailable).
const maxRetryAfter = 7 * 24 * time.Hour

// validateRequest checks what both HTTP providers need from a Request.
func validateRequest(provider string, req Request) error {
	var errs []error
	if strings.TrimSpace(req.Model) == "" {
		errs = append(errs, errors.New("model is required"))
	}
	if len(req.Messages) == 0 {
		errs = append(errs, errors.New("at least one message is required"))
	}
	if req.Format != "" && req.Format != FormatJSON && req.Format != FormatGBNF {
		errs = append(errs, fmt.Errorf("format %q is not supported (want \"\", \"json\" or \"gbnf\")", req.Format))
	}
	if req.Format == FormatGBNF && req.Schema == nil {
		errs = append(errs, errors.New("format gbnf needs a schema"))
	}
	if req.MaxTokens < 0 {
		errs = append(errs, fmt.Errorf("max tokens %d is negative", req.MaxTokens))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("could not send %s request: %w: %w", provider, ErrRejected, err)
	}
	return nil
}

// joinURL appends path to base, tolerating a trailing slash on base.
func joinURL(base, path string) string {
	return strings.TrimRight(base, "/") + path
}

// checkHTTPConfig validates c as a provider of type typ.
func checkHTTPConfig(c ProviderConfig, typ string) error {
	if c.Type != "" && c.Type != typ {
		return fmt.Errorf("%w: provider type %q given to the %s provider", ErrInvalidConfig, c.Type, typ)
	}
	c.Type = typ
	return c.Validate()
}
