package events

import (
	"errors"
	"sort"
	"time"
)

// ModelUsage is what one phase's model calls cost, per provider and model:
// the number of calls, input (prompt) and output (completion) tokens as the
// server reported them, and the time spent waiting for answers.
type ModelUsage struct {
	Phase        string `json:"phase"`
	Provider     string `json:"provider"`
	Model        string `json:"model"`
	Calls        int    `json:"calls"`
	InputTokens  int    `json:"input_tokens"`
	OutputTokens int    `json:"output_tokens"`
	DurationMS   int64  `json:"duration_ms"`
}

// UsageTotal sums a run's model usage over every phase and attempt.
type UsageTotal struct {
	Calls        int   `json:"calls"`
	InputTokens  int   `json:"input_tokens"`
	OutputTokens int   `json:"output_tokens"`
	DurationMS   int64 `json:"duration_ms"`
}

// Call is one model call to account: provider is the configured provider
// name, model the model that answered.
func Call(phase, provider, model string, input, output int, d time.Duration) ModelUsage {
	return ModelUsage{Phase: phase, Provider: provider, Model: model, Calls: 1, InputTokens: input, OutputTokens: output, DurationMS: d.Milliseconds()}
}

// MergeUsage adds more to list, one entry per phase, provider and model,
// sorted by those keys; list is not modified.
func MergeUsage(list []ModelUsage, more ...ModelUsage) []ModelUsage {
	out := append([]ModelUsage(nil), list...)
	for _, m := range more {
		found := false
		for i := range out {
			if out[i].Phase == m.Phase && out[i].Provider == m.Provider && out[i].Model == m.Model {
				out[i].Calls += m.Calls
				out[i].InputTokens += m.InputTokens
				out[i].OutputTokens += m.OutputTokens
				out[i].DurationMS += m.DurationMS
				found = true
				break
			}
		}
		if !found {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Phase != b.Phase {
			return a.Phase < b.Phase
		}
		if a.Provider != b.Provider {
			return a.Provider < b.Provider
		}
		return a.Model < b.Model
	})
	return out
}

// TotalUsage sums list.
func TotalUsage(list []ModelUsage) UsageTotal {
	var t UsageTotal
	for _, m := range list {
		t.Calls += m.Calls
		t.InputTokens += m.InputTokens
		t.OutputTokens += m.OutputTokens
		t.DurationMS += m.DurationMS
	}
	return t
}

// UsageTotalOf is the total of run's usage, nil when no model was called.
func UsageTotalOf(run Run) *UsageTotal {
	if len(run.Usage) == 0 {
		return nil
	}
	t := TotalUsage(run.Usage)
	return &t
}

// UsageError carries the model usage of a phase that failed, so the
// failed event that ends the run still accounts for it.
type UsageError struct {
	// Usage is the failed phase's model usage.
	Usage []ModelUsage
	// Err is the failure.
	Err error
}

// Error is the failure's text.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the failure.
func (e *UsageError) Unwrap() error { return e.Err }

// WithUsage attaches usage to err (nil stays nil; no usage returns err).
func WithUsage(err error, usage []ModelUsage) error {
	if err == nil || len(usage) == 0 {
		return err
	}
	return &UsageError{Usage: usage, Err: err}
}

// UsageOfError returns the usage attached to err with WithUsage, if any.
func UsageOfError(err error) []ModelUsage {
	var ue *UsageError
	if errors.As(err, &ue) {
		return ue.Usage
	}
	return nil
}
