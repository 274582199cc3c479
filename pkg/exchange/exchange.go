// Package exchange records and replays model exchanges. A [Recorder] wraps
// an llm.Provider: every call is kept as a [Record] (the canonical redacted
// request, its hash, the response, usage and timing) in a content-addressed
// object store, and its reference is collected for the event the phase
// publishes. A [Replayer] is an llm.Provider that answers from recorded
// exchanges by request hash, and reports a request that was not recorded
// as a [DriftError] naming the first field that differs.
package exchange

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/llm"
)

// Version is the version of the record format.
const Version = 1

// Prefix is the object-store prefix of exchange records.
const Prefix = "exchanges"

// Request is the canonical form of a model request: the fields that decide
// the answer, in a fixed order. Equal requests encode to equal bytes.
type Request struct {
	Model       string  `json:"model"`
	Temperature float64 `json:"temperature"`
	Format      string  `json:"format,omitempty"`
	MaxTokens   int     `json:"max_tokens,omitempty"`
	// Schema names the answer schema and the SHA-256 of its JSON
	// ("plan:<hex>"), so a changed schema is a new request.
	Schema   string        `json:"schema,omitempty"`
	Messages []llm.Message `json:"messages"`
}

// Canonical returns the canonical form of req, every message content passed
// through redact (nil keeps it as is).
func Canonical(req llm.Request, redact func(string) string) Request {
	c := Request{Model: req.Model, Temperature: req.Temperature, Format: req.Format, MaxTokens: req.MaxTokens,
		Messages: make([]llm.Message, len(req.Messages))}
	if req.Schema != nil {
		sum := sha256.Sum256(req.Schema.JSON())
		c.Schema = req.Schema.Name() + ":" + hex.EncodeToString(sum[:])
	}
	for i, m := range req.Messages {
		if redact != nil {
			m.Content = redact(m.Content)
		}
		// The run's own id (in goal ids, paths) is not part of what was
		// asked: a rerun under a new id asks the same.
		if req.RunID != "" {
			m.Content = strings.ReplaceAll(m.Content, req.RunID, RunPlaceholder)
		}
		c.Messages[i] = m
	}
	return c
}

// RunPlaceholder stands for the run's id in canonical message texts.
const RunPlaceholder = "<run>"

// Hash is the hex SHA-256 of the request's canonical JSON, with the
// durations in message texts (0.002s, 15ms: timings that tools and test
// runners print) replaced by a marker first, so that timing noise in a
// check's output does not make a request new.
func (r Request) Hash() string {
	raw, _ := json.Marshal(r.stable()) // strings, numbers and slices of them always marshal
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// stable is r with printed durations in message texts replaced by a
// marker: the form hashes and differences are taken of.
func (r Request) stable() Request {
	st := r
	st.Messages = make([]llm.Message, len(r.Messages))
	for i, m := range r.Messages {
		if mayHaveDuration(m.Content) {
			m.Content = durations.ReplaceAllString(m.Content, "<duration>")
		}
		st.Messages[i] = m
	}
	return st
}

// mayHaveDuration reports whether durations can match in s: every match
// ends in an "s" right after a number with a fraction (0.002s), or after
// "m", "u" or "n" right after a digit (15ms), or after "µ" right after a
// digit (3µs). Looking for such an "s" is much cheaper than running the
// expression over a long prompt that has none (whole seconds, "5s", are
// not durations to it).
func mayHaveDuration(s string) bool {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], 's')
		if j < 0 {
			return false
		}
		i += j
		switch {
		case afterFraction(s, i):
			return true
		case i >= 2 && strings.IndexByte("mun", s[i-1]) >= 0 && isDigit(s[i-2]):
			return true
		case i >= 3 && s[i-2:i] == "µ" && isDigit(s[i-3]):
			return true
		}
		i++
	}
}

// afterFraction reports whether s[:i] ends in digits, a dot and digits.
func afterFraction(s string, i int) bool {
	j := i
	for j > 0 && isDigit(s[j-1]) {
		j--
	}
	return j < i && j >= 2 && s[j-1] == '.' && isDigit(s[j-2])
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// durations matches printed durations: a decimal number of seconds with a
// fraction (0.002s, 1.50s) or a number of milli-, micro- or nanoseconds.
// Whole seconds ("5s") are not matched: prompts state limits that way.
var durations = regexp.MustCompile(`\b\d+\.\d+s\b|\b\d+(?:\.\d+)?(?:ms|µs|us|ns)\b`)

// Response is a recorded model answer.
type Response struct {
	Content string    `json:"content"`
	Model   string    `json:"model,omitempty"`
	Usage   llm.Usage `json:"usage"`
}

// Record is one model exchange as stored.
type Record struct {
	Version int `json:"version"`
	// Hash is Request.Hash().
	Hash string `json:"hash"`
	// Phase, RunID, Attempt and Step say who asked and when in the run.
	Phase   string `json:"phase"`
	RunID   string `json:"run_id"`
	Attempt int    `json:"attempt"`
	Step    int    `json:"step"`
	// Request is the canonical request, redacted.
	Request Request `json:"request"`
	// Response is the answer (redacted); nil when the call failed.
	Response *Response `json:"response,omitempty"`
	// Error is the call's error (redacted), when it failed.
	Error string `json:"error,omitempty"`
	// Started is when the call started; DurationMS how long it took.
	Started    time.Time `json:"started"`
	DurationMS int64     `json:"duration_ms"`
}
