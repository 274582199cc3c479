package docdex

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinel errors. Every error a Client returns wraps exactly one of them,
// so callers match with errors.Is; *Error carries the details.
var (
	// ErrUnavailable: the daemon could not be reached (connection refused,
	// timeout, closed connection).
	ErrUnavailable = errors.New("docdex: daemon unavailable")
	// ErrUnauthorized: 401, the bearer token is missing or wrong.
	ErrUnauthorized = errors.New("docdex: unauthorized")
	// ErrInvalidArgument: 400 invalid_argument, or MCP -32602.
	ErrInvalidArgument = errors.New("docdex: invalid argument")
	// ErrMissingRepo: 400 missing_repo (several repositories mounted and
	// none selected).
	ErrMissingRepo = errors.New("docdex: missing repository")
	// ErrUnknownRepo: 404 unknown_repo.
	ErrUnknownRepo = errors.New("docdex: unknown repository")
	// ErrMemoryDisabled: 409 memory_disabled.
	ErrMemoryDisabled = errors.New("docdex: memory disabled")
	// ErrMissingIndex: 409 missing_index.
	ErrMissingIndex = errors.New("docdex: missing index")
	// ErrStaleIndex: 409 stale_index.
	ErrStaleIndex = errors.New("docdex: stale index")
	// ErrIndexing: 202 indexing_in_progress, still so after waiting.
	ErrIndexing = errors.New("docdex: indexing in progress")
	// ErrRateLimited: 429 rate_limited or MCP -32029, still so after waiting.
	ErrRateLimited = errors.New("docdex: rate limited")
	// ErrEmbeddingTimeout: 504 embedding_timeout.
	ErrEmbeddingTimeout = errors.New("docdex: embedding timeout")
	// ErrUnknownTool: MCP -32601.
	ErrUnknownTool = errors.New("docdex: unknown tool")
	// ErrToolFailed: an MCP tool answered with isError, or an unknown
	// JSON-RPC error code.
	ErrToolFailed = errors.New("docdex: tool failed")
	// ErrServer: any other failure status (for instance a plain-text 500),
	// or a response that is not the documented shape.
	ErrServer = errors.New("docdex: server error")
)

// Error codes of the daemon's error body.
const (
	CodeInvalidArgument    = "invalid_argument"
	CodeMissingRepo        = "missing_repo"
	CodeUnknownRepo        = "unknown_repo"
	CodeMemoryDisabled     = "memory_disabled"
	CodeMissingIndex       = "missing_index"
	CodeStaleIndex         = "stale_index"
	CodeIndexingInProgress = "indexing_in_progress"
	CodeRateLimited        = "rate_limited"
	CodeEmbeddingTimeout   = "embedding_timeout"
)

// JSON-RPC error codes of the MCP transport.
const (
	RPCMethodNotFound = -32601
	RPCInvalidParams  = -32602
	RPCRateLimited    = -32029
)

var codeSentinel = map[string]error{
	CodeInvalidArgument:    ErrInvalidArgument,
	CodeMissingRepo:        ErrMissingRepo,
	CodeUnknownRepo:        ErrUnknownRepo,
	CodeMemoryDisabled:     ErrMemoryDisabled,
	CodeMissingIndex:       ErrMissingIndex,
	CodeStaleIndex:         ErrStaleIndex,
	CodeIndexingInProgress: ErrIndexing,
	CodeRateLimited:        ErrRateLimited,
	CodeEmbeddingTimeout:   ErrEmbeddingTimeout,
}

// Error is a failure reported by the daemon (HTTP error body, plain-text
// status, JSON-RPC error or MCP tool error). It unwraps to one sentinel.
type Error struct {
	// Op is the endpoint or tool, for instance "GET /search" or
	// "docdex_symbols".
	Op string
	// Status is the HTTP status (0 for JSON-RPC errors inside a 200).
	Status int
	// Code is the daemon's error code ("stale_index"), if any.
	Code string
	// RPCCode is the JSON-RPC error code, if any.
	RPCCode int
	// Message is the daemon's message, or the plain-text body.
	Message string
	// Details is the error's details object, if any.
	Details json.RawMessage
	// RetryAfter is the daemon's hint (retry_after_ms or Retry-After).
	RetryAfter time.Duration

	sentinel error
}

// Error describes the failure readably, including a plain-text body.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.sentinel.Error())
	if e.Op != "" {
		b.WriteString(" (" + e.Op + ")")
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
	}
	if e.RPCCode != 0 {
		fmt.Fprintf(&b, ": JSON-RPC %d", e.RPCCode)
	}
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	return b.String()
}

// Unwrap returns the sentinel the error belongs to.
func (e *Error) Unwrap() error { return e.sentinel }

// errorBody is the daemon's error body.
type errorBody struct {
	Error *struct {
		Code         string          `json:"code"`
		Message      string          `json:"message"`
		Details      json.RawMessage `json:"details"`
		RetryAfterMS *int64          `json:"retry_after_ms"`
	} `json:"error"`
}

// retryAfterDetails reads details.retry_after_ms.
func retryAfterDetails(raw json.RawMessage) time.Duration {
	var d struct {
		RetryAfterMS *int64 `json:"retry_after_ms"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &d) != nil || d.RetryAfterMS == nil {
		return 0
	}
	return time.Duration(*d.RetryAfterMS) * time.Millisecond
}

// httpError maps a non-2xx (or 202) response to an *Error. body is the
// (bounded) response body; retryAfter is the parsed Retry-After header.
func httpError(op string, status int, body []byte, retryAfter time.Duration) *Error {
	e := &Error{Op: op, Status: status, RetryAfter: retryAfter}
	var eb errorBody
	if json.Unmarshal(body, &eb) == nil && eb.Error != nil && eb.Error.Code != "" {
		e.Code, e.Message, e.Details = eb.Error.Code, eb.Error.Message, eb.Error.Details
		if eb.Error.RetryAfterMS != nil {
			e.RetryAfter = time.Duration(*eb.Error.RetryAfterMS) * time.Millisecond
		} else if d := retryAfterDetails(eb.Error.Details); d > 0 {
			e.RetryAfter = d
		}
		if s, ok := codeSentinel[e.Code]; ok {
			e.sentinel = s
			return e
		}
	} else {
		e.Message = strings.TrimSpace(string(body))
	}
	switch {
	case status == 401:
		e.sentinel = ErrUnauthorized
	case status == 429:
		e.sentinel, e.Code = ErrRateLimited, CodeRateLimited
	case status == 404 && e.Code == "":
		e.sentinel = ErrServer
	case status == 400:
		e.sentinel = ErrInvalidArgument
	default:
		e.sentinel = ErrServer
	}
	return e
}

// rpcError maps a JSON-RPC error object to an *Error.
func rpcError(op string, code int, msg string, data json.RawMessage) *Error {
	e := &Error{Op: op, RPCCode: code, Message: msg, Details: data}
	switch code {
	case RPCMethodNotFound:
		e.sentinel = ErrUnknownTool
	case RPCInvalidParams:
		e.sentinel = ErrInvalidArgument
	case RPCRateLimited:
		e.sentinel, e.Code = ErrRateLimited, CodeRateLimited
		e.RetryAfter = retryAfterDetails(data)
	default:
		// Some daemons put the HTTP-style code in data.code.
		var d struct {
			Code string `json:"code"`
		}
		if json.Unmarshal(data, &d) == nil {
			if s, ok := codeSentinel[d.Code]; ok {
				e.Code, e.sentinel = d.Code, s
				e.RetryAfter = retryAfterDetails(data)
				return e
			}
		}
		e.sentinel = ErrToolFailed
	}
	return e
}
