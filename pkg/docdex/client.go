// Package docdex is a client for the Docdex daemon (docdexd), the local
// code and documentation index the librarian queries for verified context:
// its HTTP endpoints (health, initialize, search, snippet, impact graph and
// diagnostics, DAG export, index rebuild and status, validation hooks,
// delegate) and its MCP tools over JSON-RPC 2.0 on POST /v1/mcp (symbols,
// AST, files, stats, memory, profile, tree, open, search, index, web
// research, impact diagnostics).
//
// The client waits while the daemon indexes (202 indexing_in_progress,
// honouring retry_after_ms) or rate-limits (429 or JSON-RPC -32029,
// honouring Retry-After), initializes the repository on unknown_repo, and
// asks for a rebuild on missing_index or stale_index, within a bounded
// wait. Every failure wraps one of the package's sentinel errors.
package docdex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Default values of Options.
const (
	DefaultURL     = "http://127.0.0.1:28491"
	DefaultTimeout = 10 * time.Second
	DefaultMaxWait = 30 * time.Second
	// defaultRetry is the wait when the daemon gives no hint.
	defaultRetry = 500 * time.Millisecond
	// maxBody bounds a response body read.
	maxBody = 8 << 20
)

// Headers the daemon reads or sets.
const (
	HeaderRepoID      = "x-docdex-repo-id"
	HeaderAgentID     = "x-docdex-agent-id"
	HeaderDagSession  = "x-docdex-dag-session"
	HeaderMCPSession  = "mcp-session-id"
	HeaderMCPSession2 = "x-docdex-mcp-session"
)

// Options configure a Client.
type Options struct {
	// URL is the daemon's base URL. Default DefaultURL.
	URL string
	// Token, when set, is sent as a bearer token.
	Token string
	// RepoID selects the repository (x-docdex-repo-id) when set.
	RepoID string
	// AgentID is sent as x-docdex-agent-id when set.
	AgentID string
	// Root is the repository's absolute path, used to initialize the
	// repository (on unknown_repo) and to bind MCP sessions.
	Root string
	// Timeout bounds each HTTP round trip. Default DefaultTimeout.
	Timeout time.Duration
	// MaxWait bounds the total time one call spends waiting for indexing
	// or a rate limit. Default DefaultMaxWait.
	MaxWait time.Duration
	// HTTPClient is the HTTP client. Default: a client without timeout
	// (Timeout applies per round trip through the context).
	HTTPClient *http.Client
	// Sleep waits d or until ctx ends. Default: a timer. Tests replace it
	// to observe the waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// Observe, when set, is told when the client recovers on its own:
	// "initialize" after unknown_repo, "rebuild" after missing_index or
	// stale_index, "wait" while indexing or rate limited.
	Observe func(Notice)
}

// Notice tells an observer what the client did to recover from an error.
type Notice struct {
	// Action is "initialize", "rebuild" or "wait".
	Action string
	// Op is the call that hit the error.
	Op string
	// Cause is the daemon's error.
	Cause error
	// Wait is how long the client waited (Action "wait").
	Wait time.Duration
}

// Client talks to one daemon. It is safe for concurrent use; With returns
// views sharing the MCP sessions.
type Client struct {
	o     Options
	base  *url.URL
	state *shared
}

// shared is what views of one client share.
type shared struct {
	mu       sync.Mutex
	sessions map[string]string // MCP session id per root
	nextID   atomic.Int64
}

// New returns a client. It fails, wrapping ErrInvalidArgument, when the URL
// does not parse.
func New(o Options) (*Client, error) {
	if o.URL == "" {
		o.URL = DefaultURL
	}
	u, err := url.Parse(strings.TrimRight(o.URL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: docdex url %q must be http(s)://host[:port]", ErrInvalidArgument, o.URL)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	return &Client{o: o, base: u, state: &shared{sessions: map[string]string{}}}, nil
}

// Scope adjusts a view of the client for one repository or agent; empty
// fields keep the client's values.
type Scope struct {
	Root    string
	RepoID  string
	AgentID string
	Observe func(Notice)
}

// With returns a view of the client with the scope applied. Views share
// MCP sessions and are safe for concurrent use.
func (c *Client) With(s Scope) *Client {
	v := *c
	if s.Root != "" {
		v.o.Root = s.Root
	}
	if s.RepoID != "" {
		v.o.RepoID = s.RepoID
	}
	if s.AgentID != "" {
		v.o.AgentID = s.AgentID
	}
	if s.Observe != nil {
		v.o.Observe = s.Observe
	}
	return &v
}

// URL is the daemon's base URL.
func (c *Client) URL() string { return c.base.String() }

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// request is one HTTP call to make (rebuilt for every retry).
type request struct {
	method string
	path   string // already escaped
	query  url.Values
	body   any
	// header adds headers.
	header http.Header
	// noRepo leaves the repo header out (initialize of another root).
	noRepo bool
}

func (r request) op() string { return r.method + " " + strings.SplitN(r.path, "?", 2)[0] }

// response is a successful response.
type response struct {
	status int
	header http.Header
	body   []byte
}

// roundTrip sends one request and maps failure statuses to *Error. A 202
// with an error body is an error (indexing_in_progress).
func (c *Client) roundTrip(ctx context.Context, r request) (response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	u := *c.base
	u.Path = c.base.Path + r.path
	if len(r.query) > 0 {
		u.RawQuery = r.query.Encode()
	}
	var body io.Reader
	if r.body != nil {
		raw, err := json.Marshal(r.body)
		if err != nil {
			return response{}, fmt.Errorf("%w: could not encode %s body: %v", ErrInvalidArgument, r.op(), err)
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), body)
	if err != nil {
		return response{}, fmt.Errorf("%w: %s: %v", ErrInvalidArgument, r.op(), err)
	}
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.o.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.o.Token)
	}
	if c.o.RepoID != "" && !r.noRepo {
		req.Header.Set(HeaderRepoID, c.o.RepoID)
	}
	if c.o.AgentID != "" {
		req.Header.Set(HeaderAgentID, c.o.AgentID)
	}
	for k, vs := range r.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := c.o.HTTPClient.Do(req)
	if err != nil {
		return response{}, &Error{Op: r.op(), Message: redactURL(err.Error()), sentinel: ErrUnavailable}
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return response{}, &Error{Op: r.op(), Status: resp.StatusCode, Message: err.Error(), sentinel: ErrUnavailable}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 && resp.StatusCode != http.StatusAccepted {
		return response{status: resp.StatusCode, header: resp.Header, body: raw}, nil
	}
	if resp.StatusCode == http.StatusAccepted {
		// 202 is indexing_in_progress when it carries an error body;
		// otherwise an accepted request (rebuild).
		var eb errorBody
		if json.Unmarshal(raw, &eb) != nil || eb.Error == nil {
			return response{status: resp.StatusCode, header: resp.Header, body: raw}, nil
		}
	}
	return response{}, httpError(r.op(), resp.StatusCode, raw, parseRetryAfter(resp.Header.Get("Retry-After")))
}

// redactURL keeps error text free of query strings (which may carry
// search text); the operation name already says what failed.
func redactURL(s string) string {
	if i := strings.Index(s, "?"); i >= 0 {
		if j := strings.IndexAny(s[i:], "\": "); j > 0 {
			return s[:i] + s[i+j:]
		}
		return s[:i]
	}
	return s
}

// parseRetryAfter reads Retry-After in seconds or as an HTTP date.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// call sends r, recovering as the package doc says: waits for indexing
// and rate limits (within MaxWait), initializes on unknown_repo and asks
// for a rebuild on missing or stale index (once each).
func (c *Client) call(ctx context.Context, r request, send func(context.Context, request) (response, error)) (response, error) {
	var waited time.Duration
	initialized, rebuilt := false, false
	for {
		resp, err := send(ctx, r)
		if err == nil {
			return resp, nil
		}
		var de *Error
		if !errors.As(err, &de) {
			return resp, err
		}
		switch {
		case errors.Is(err, ErrIndexing) || errors.Is(err, ErrRateLimited):
			d := de.RetryAfter
			if d <= 0 {
				d = defaultRetry
			}
			if waited+d > c.o.MaxWait {
				return resp, fmt.Errorf("gave up after waiting %s: %w", waited.Round(time.Millisecond), err)
			}
			c.notify(Notice{Action: "wait", Op: r.op(), Cause: err, Wait: d})
			if serr := c.o.Sleep(ctx, d); serr != nil {
				return resp, fmt.Errorf("%w (%v)", err, serr)
			}
			waited += d
		case errors.Is(err, ErrUnknownRepo) && !initialized && c.o.Root != "":
			initialized = true
			c.notify(Notice{Action: "initialize", Op: r.op(), Cause: err})
			if _, ierr := c.Initialize(ctx, c.o.Root); ierr != nil {
				return resp, fmt.Errorf("%w (initialize failed: %v)", err, ierr)
			}
		case (errors.Is(err, ErrMissingIndex) || errors.Is(err, ErrStaleIndex)) && !rebuilt:
			rebuilt = true
			c.notify(Notice{Action: "rebuild", Op: r.op(), Cause: err})
			if rerr := c.Rebuild(ctx); rerr != nil {
				return resp, fmt.Errorf("%w (rebuild failed: %v)", err, rerr)
			}
		default:
			return resp, err
		}
	}
}

func (c *Client) notify(n Notice) {
	if c.o.Observe != nil {
		c.o.Observe(n)
	}
}

// getJSON runs an HTTP call with recovery and decodes the JSON answer.
func (c *Client) doJSON(ctx context.Context, r request, out any) error {
	resp, err := c.call(ctx, r, c.roundTrip)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(resp.body, out); err != nil {
		return &Error{Op: r.op(), Status: resp.status, Message: "unexpected answer: " + err.Error(), sentinel: ErrServer}
	}
	return nil
}
