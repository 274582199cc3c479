package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// seenRequest is what a fake model server received.
type seenRequest struct {
	Method      string
	Path        string
	Header      http.Header
	Body        []byte
	Count       int
	ContentType string
}

// fakeServer is an in-process model server answering with respond and
// remembering the last request.
type fakeServer struct {
	URL string
	mu  sync.Mutex
	req seenRequest
}

// last returns the last request the server received.
func (f *fakeServer) last() seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.req
}

// startServer starts an httptest server that records each request and
// answers with respond; it is closed when the test ends.
func startServer(t *testing.T, respond http.HandlerFunc) *fakeServer {
	t.Helper()
	f := &fakeServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.req = seenRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Count: f.req.Count + 1, ContentType: r.Header.Get("Content-Type")}
		f.mu.Unlock()
		respond(w, r)
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// reply answers with status, headers and body.
func reply(status int, header map[string]string, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		if _, ok := header["Content-Type"]; !ok {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// assertJSONEqual fails unless got and want decode to the same value.
func assertJSONEqual(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("request body is not JSON: %v: %s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expectation %s: %v", want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("request body\n got: %s\nwant: %s", got, want)
	}
}

// closedAddr returns a loopback URL nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return "http://" + addr
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		value  string
		want   time.Duration
		wantOK bool
	}{
		{name: "seconds", value: "7", want: 7 * time.Second, wantOK: true},
		{name: "zero", value: "0", want: 0, wantOK: true},
		{name: "spaces", value: " 3 ", want: 3 * time.Second, wantOK: true},
		{name: "http date", value: now.Add(90 * time.Second).Format(http.TimeFormat), want: 90 * time.Second, wantOK: true},
		{name: "past date", value: now.Add(-time.Hour).Format(http.TimeFormat), want: 0, wantOK: true},
		{name: "empty", value: "", wantOK: false},
		{name: "negative", value: "-5", wantOK: false},
		{name: "garbage", value: "soon", wantOK: false},
		{name: "huge seconds", value: "99999999999999", wantOK: false},
		{name: "far date", value: now.Add(30 * 24 * time.Hour).Format(http.TimeFormat), wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseRetryAfter(tt.value, now)
			if ok != tt.wantOK || got != tt.want {
				t.Fatalf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.value, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestServerMessage(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string
	}{
		{name: "ollama", body: `{"error":"model \"x\" not found, try pulling it first"}`, want: `model "x" not found, try pulling it first`},
		{name: "openai with code", body: `{"error":{"message":"The model does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}`, want: "The model does not exist (model_not_found)"},
		{name: "openai null code", body: `{"error":{"message":"bad","type":"server_error","param":null,"code":null}}`, want: "bad"},
		{name: "openai numeric code", body: `{"error":{"message":"bad","code":500}}`, want: "bad"},
		{name: "message field", body: `{"message":"overloaded"}`, want: "overloaded"},
		{name: "detail field", body: `{"detail":"Not Found"}`, want: "Not Found"},
		{name: "plain text", body: "  <html>Bad Gateway</html>\n", want: "<html>Bad Gateway</html>"},
		{name: "empty", body: "", want: ""},
		{name: "unknown json", body: `{"x":1}`, want: `{"x":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := serverMessage([]byte(tt.body)); got != tt.want {
				t.Fatalf("serverMessage(%q) = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{name: "short", in: "abc", n: 5, want: "abc"},
		{name: "exact", in: "abcde", n: 5, want: "abcde"},
		{name: "ascii", in: "abcdef", n: 3, want: "abc…"},
		{name: "rune boundary", in: "aéé", n: 2, want: "a…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := truncate(tt.in, tt.n); got != tt.want {
				t.Fatalf("truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}

func TestHTTPErrorClass(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		transient bool
	}{
		{name: "400", status: 400},
		{name: "401", status: 401},
		{name: "404", status: 404},
		{name: "422", status: 422},
		{name: "408", status: 408, transient: true},
		{name: "429", status: 429, transient: true},
		{name: "500", status: 500, transient: true},
		{name: "504", status: 504, transient: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := error(&HTTPError{Provider: "x", StatusCode: tt.status})
			if errors.Is(err, ErrUnavailable) != tt.transient || errors.Is(err, ErrRejected) == tt.transient {
				t.Fatalf("status %d: Is(ErrUnavailable)=%v Is(ErrRejected)=%v, want transient=%v", tt.status, errors.Is(err, ErrUnavailable), errors.Is(err, ErrRejected), tt.transient)
			}
			if !strings.Contains(err.Error(), http.StatusText(tt.status)) {
				t.Fatalf("error %q lacks the status text", err)
			}
		})
	}
}

// httpProvider builds one HTTP provider for the shared tests.
type httpProvider struct {
	name string
	// make builds the provider against base.
	make func(t *testing.T, c ProviderConfig, opts ...HTTPOption) Provider
	// ok is a valid success body in the provider's wire format.
	ok string
}

// httpProviders lists both HTTP providers.
func httpProviders() []httpProvider {
	return []httpProvider{
		{
			name: TypeOllama,
			make: func(t *testing.T, c ProviderConfig, opts ...HTTPOption) Provider {
				t.Helper()
				p, err := NewOllama(c, opts...)
				if err != nil {
					t.Fatalf("NewOllama: %v", err)
				}
				return p
			},
			ok: `{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"hi"},"done":true,"done_reason":"stop","total_duration":1,"prompt_eval_count":1,"eval_count":1}`,
		},
		{
			name: TypeOpenAI,
			make: func(t *testing.T, c ProviderConfig, opts ...HTTPOption) Provider {
				t.Helper()
				p, err := NewOpenAI(c, "sk-test", opts...)
				if err != nil {
					t.Fatalf("NewOpenAI: %v", err)
				}
				return p
			},
			ok: `{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
		},
	}
}

// simpleRequest is a valid request.
func simpleRequest() Request {
	return Request{Model: "m", Messages: []Message{{Role: "user", Content: "hello"}}}
}

func TestHTTPProvidersStatusErrors(t *testing.T) {
	soon := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	tests := []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		want       error // ErrRejected or ErrUnavailable
		retryAfter time.Duration
		dateRetry  bool
		contains   string
	}{
		{name: "404 model not found ollama shape", status: 404, body: `{"error":"model \"m\" not found, try pulling it first"}`, want: ErrRejected, contains: "not found"},
		{name: "404 model not found openai shape", status: 404, body: `{"error":{"message":"The model m does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}`, want: ErrRejected, contains: "does not exist"},
		{name: "400 bad request", status: 400, body: `{"error":"invalid options"}`, want: ErrRejected, contains: "invalid options"},
		{name: "401 unauthorized", status: 401, body: `{"error":{"message":"no key","type":"invalid_request_error"}}`, want: ErrRejected, contains: "no key"},
		{name: "408 timeout", status: 408, body: ``, want: ErrUnavailable, contains: "Request Timeout"},
		{name: "500", status: 500, body: `{"error":"boom"}`, want: ErrUnavailable, contains: "boom"},
		{name: "502 html", status: 502, header: map[string]string{"Content-Type": "text/html"}, body: "<html>Bad Gateway</html>", want: ErrUnavailable, contains: "Bad Gateway"},
		{name: "503", status: 503, body: `{"error":"loading"}`, want: ErrUnavailable, contains: "loading"},
		{name: "429 without retry-after", status: 429, body: `{"error":{"message":"slow down"}}`, want: ErrUnavailable, contains: "slow down"},
		{name: "429 retry-after seconds", status: 429, header: map[string]string{"Retry-After": "7"}, body: `{"error":{"message":"rate limited"}}`, want: ErrUnavailable, retryAfter: 7 * time.Second, contains: "rate limited"},
		{name: "503 retry-after date", status: 503, header: map[string]string{"Retry-After": soon}, body: `{"error":"busy"}`, want: ErrUnavailable, dateRetry: true, contains: "busy"},
		{name: "429 bad retry-after", status: 429, header: map[string]string{"Retry-After": "later"}, body: `{}`, want: ErrUnavailable},
		{name: "500 with retry-after ignored", status: 500, header: map[string]string{"Retry-After": "3"}, body: `{}`, want: ErrUnavailable},
		{name: "long message truncated", status: 400, body: `{"error":"` + strings.Repeat("x", 5000) + `"}`, want: ErrRejected, contains: "xxx…"},
	}
	for _, hp := range httpProviders() {
		for _, tt := range tests {
			t.Run(hp.name+"/"+tt.name, func(t *testing.T) {
				srv := startServer(t, reply(tt.status, tt.header, tt.body))
				p := hp.make(t, ProviderConfig{BaseURL: srv.URL})
				_, err := p.Complete(t.Context(), simpleRequest())
				if !errors.Is(err, tt.want) {
					t.Fatalf("err = %v, want it to wrap %v", err, tt.want)
				}
				other := ErrRejected
				if tt.want == ErrRejected {
					other = ErrUnavailable
				}
				if errors.Is(err, other) {
					t.Fatalf("err = %v also wraps %v", err, other)
				}
				var herr *HTTPError
				if !errors.As(err, &herr) || herr.StatusCode != tt.status || herr.Provider != hp.name {
					t.Fatalf("err = %v, want *HTTPError with status %d from %s", err, tt.status, hp.name)
				}
				if len(herr.Message) > maxErrorMessageBytes+len("…") {
					t.Fatalf("message has %d bytes, want at most %d", len(herr.Message), maxErrorMessageBytes)
				}
				if !strings.Contains(err.Error(), tt.contains) {
					t.Fatalf("err = %q, want it to contain %q", err, tt.contains)
				}
				var rerr *RetryAfterError
				gotRetry := errors.As(err, &rerr)
				switch {
				case tt.dateRetry:
					if !gotRetry || rerr.After <= 50*time.Minute || rerr.After > time.Hour {
						t.Fatalf("err = %v, want RetryAfterError of about 1h", err)
					}
				case tt.retryAfter > 0:
					if !gotRetry || rerr.After != tt.retryAfter {
						t.Fatalf("err = %v, want RetryAfterError after %v", err, tt.retryAfter)
					}
				case gotRetry:
					t.Fatalf("err = %v, want no RetryAfterError", err)
				}
			})
		}
	}
}

func TestHTTPProvidersBodyErrors(t *testing.T) {
	big := func(n int) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"model":"m","pad":"`+strings.Repeat("p", n)+`"}`)
		}
	}
	tests := []struct {
		name     string
		respond  http.HandlerFunc
		opts     []HTTPOption
		contains string
	}{
		{name: "malformed json", respond: reply(200, nil, `{"model":`), contains: "could not decode"},
		{name: "not json", respond: reply(200, map[string]string{"Content-Type": "text/plain"}, `hello`), contains: "could not decode"},
		{name: "oversize body default limit", respond: big(int(DefaultMaxResponseBytes)), contains: "exceeds 8388608 bytes"},
		{name: "oversize body custom limit", respond: big(2000), opts: []HTTPOption{WithMaxResponseBytes(1000)}, contains: "exceeds 1000 bytes"},
	}
	for _, hp := range httpProviders() {
		for _, tt := range tests {
			t.Run(hp.name+"/"+tt.name, func(t *testing.T) {
				srv := startServer(t, tt.respond)
				p := hp.make(t, ProviderConfig{BaseURL: srv.URL}, tt.opts...)
				_, err := p.Complete(t.Context(), simpleRequest())
				if !errors.Is(err, ErrRejected) || errors.Is(err, ErrUnavailable) {
					t.Fatalf("err = %v, want ErrRejected only", err)
				}
				if !strings.Contains(err.Error(), tt.contains) {
					t.Fatalf("err = %q, want it to contain %q", err, tt.contains)
				}
			})
		}
	}
}

func TestHTTPProvidersWithinLimit(t *testing.T) {
	for _, hp := range httpProviders() {
		t.Run(hp.name, func(t *testing.T) {
			srv := startServer(t, reply(200, nil, hp.ok))
			p := hp.make(t, ProviderConfig{BaseURL: srv.URL}, WithMaxResponseBytes(int64(len(hp.ok))))
			resp, err := p.Complete(t.Context(), simpleRequest())
			if err != nil || resp.Content != "hi" {
				t.Fatalf("Complete = %+v, %v; want content hi", resp, err)
			}
		})
	}
}

func TestHTTPProvidersTransportErrors(t *testing.T) {
	tests := []struct {
		name string
		// run makes one failing call and returns its error.
		run func(t *testing.T, hp httpProvider) error
		// wantCtx is the context error the failure must wrap, if any.
		wantCtx error
	}{
		{
			name: "connection refused",
			run: func(t *testing.T, hp httpProvider) error {
				p := hp.make(t, ProviderConfig{BaseURL: closedAddr(t)})
				_, err := p.Complete(t.Context(), simpleRequest())
				return err
			},
		},
		{
			name: "timeout",
			run: func(t *testing.T, hp httpProvider) error {
				srv := blockingServer(t, nil)
				p := hp.make(t, ProviderConfig{BaseURL: srv.URL, TimeoutMS: 50})
				_, err := p.Complete(t.Context(), simpleRequest())
				if err != nil && !strings.Contains(err.Error(), "timed out") {
					t.Errorf("err = %q, want it to say timed out", err)
				}
				return err
			},
			wantCtx: context.DeadlineExceeded,
		},
		{
			name: "timeout while reading the answer",
			run: func(t *testing.T, hp httpProvider) error {
				srv := stallingServer(t, http.StatusOK)
				p := hp.make(t, ProviderConfig{BaseURL: srv.URL, TimeoutMS: 50})
				_, err := p.Complete(t.Context(), simpleRequest())
				return err
			},
			wantCtx: context.DeadlineExceeded,
		},
		{
			name: "timeout while reading an error answer",
			run: func(t *testing.T, hp httpProvider) error {
				srv := stallingServer(t, http.StatusBadRequest)
				p := hp.make(t, ProviderConfig{BaseURL: srv.URL, TimeoutMS: 50})
				_, err := p.Complete(t.Context(), simpleRequest())
				return err
			},
			wantCtx: context.DeadlineExceeded,
		},
		{
			name: "context cancelled before the call",
			run: func(t *testing.T, hp httpProvider) error {
				srv := startServer(t, reply(200, nil, hp.ok))
				p := hp.make(t, ProviderConfig{BaseURL: srv.URL})
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				_, err := p.Complete(ctx, simpleRequest())
				if srv.last().Count != 0 {
					t.Errorf("server got %d requests, want 0", srv.last().Count)
				}
				return err
			},
			wantCtx: context.Canceled,
		},
		{
			name: "context cancelled in flight",
			run: func(t *testing.T, hp httpProvider) error {
				arrived := make(chan struct{})
				srv := blockingServer(t, arrived)
				p := hp.make(t, ProviderConfig{BaseURL: srv.URL})
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				go func() {
					<-arrived
					cancel()
				}()
				_, err := p.Complete(ctx, simpleRequest())
				return err
			},
			wantCtx: context.Canceled,
		},
	}
	for _, hp := range httpProviders() {
		for _, tt := range tests {
			t.Run(hp.name+"/"+tt.name, func(t *testing.T) {
				err := tt.run(t, hp)
				if !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrRejected) {
					t.Fatalf("err = %v, want ErrUnavailable only", err)
				}
				if tt.wantCtx != nil && !errors.Is(err, tt.wantCtx) {
					t.Fatalf("err = %v, want it to wrap %v", err, tt.wantCtx)
				}
			})
		}
	}
}

// stallingServer starts a server that sends the status line and the start
// of a body, then stalls until the client goes away or the test ends.
func stallingServer(t *testing.T, status int) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"model":`)
		_ = http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	return srv
}

// blockingServer starts a server whose handler signals arrived (if not
// nil) and then waits until the client goes away or the test ends.
func blockingServer(t *testing.T, arrived chan<- struct{}) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		if arrived != nil {
			close(arrived)
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	return srv
}

func TestHTTPProvidersInvalidRequest(t *testing.T) {
	msgs := []Message{{Role: "user", Content: "x"}}
	tests := []struct {
		name     string
		req      Request
		contains string
	}{
		{name: "no model", req: Request{Messages: msgs}, contains: "model is required"},
		{name: "blank model", req: Request{Model: "  ", Messages: msgs}, contains: "model is required"},
		{name: "no messages", req: Request{Model: "m"}, contains: "at least one message"},
		{name: "unknown format", req: Request{Model: "m", Messages: msgs, Format: "yaml"}, contains: `format "yaml"`},
		{name: "negative max tokens", req: Request{Model: "m", Messages: msgs, MaxTokens: -1}, contains: "negative"},
		{name: "unencodable temperature", req: Request{Model: "m", Messages: msgs, Temperature: math.NaN()}, contains: "could not encode"},
	}
	for _, hp := range httpProviders() {
		for _, tt := range tests {
			t.Run(hp.name+"/"+tt.name, func(t *testing.T) {
				srv := startServer(t, reply(200, nil, hp.ok))
				p := hp.make(t, ProviderConfig{BaseURL: srv.URL})
				_, err := p.Complete(t.Context(), tt.req)
				if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), tt.contains) {
					t.Fatalf("err = %v, want ErrRejected containing %q", err, tt.contains)
				}
				if n := srv.last().Count; n != 0 {
					t.Fatalf("server got %d requests, want 0", n)
				}
			})
		}
	}
}

func TestHTTPProvidersOptions(t *testing.T) {
	for _, hp := range httpProviders() {
		t.Run(hp.name, func(t *testing.T) {
			var mu sync.Mutex
			used := false
			base := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				mu.Lock()
				used = true
				mu.Unlock()
				return http.DefaultTransport.RoundTrip(r)
			})}
			srv := startServer(t, reply(200, nil, hp.ok))
			p := hp.make(t, ProviderConfig{BaseURL: srv.URL + "/"}, WithHTTPClient(base), WithUserAgent("codali-test/1"), nil, WithHTTPClient(nil), WithUserAgent(""))
			if _, err := p.Complete(t.Context(), simpleRequest()); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if !used {
				t.Fatal("WithHTTPClient client was not used")
			}
			got := srv.last()
			if ua := got.Header.Get("User-Agent"); ua != "codali-test/1" {
				t.Fatalf("User-Agent = %q", ua)
			}
			if strings.Contains(got.Path, "//") {
				t.Fatalf("path %q has a double slash", got.Path)
			}
		})
	}
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestScrubErr(t *testing.T) {
	cause := errors.New("dial failed for sk-key")
	tests := []struct {
		name    string
		key     string
		err     error
		want    string
		changed bool
	}{
		{name: "no key configured", key: "", err: cause, want: "dial failed for sk-key"},
		{name: "key absent", key: "other", err: cause, want: "dial failed for sk-key"},
		{name: "key present", key: "sk-key", err: cause, want: "dial failed for " + redactedMark, changed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &endpoint{apiKey: tt.key}
			got := e.scrubErr(tt.err)
			if got.Error() != tt.want || !errors.Is(got, cause) || (got != tt.err) != tt.changed {
				t.Fatalf("scrubErr = %q (changed %v), want %q (changed %v) still matching the cause", got, got != tt.err, tt.want, tt.changed)
			}
		})
	}
}
