package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
)

// ErrDrift: a request was not among the recorded ones.
var ErrDrift = errors.New("request was not recorded")

// ErrBadRecord: an exchange record cannot be used.
var ErrBadRecord = errors.New("bad exchange record")

// Getter fetches an artifact by reference (artifacts.Store implements it).
type Getter interface {
	Get(ctx context.Context, ref events.ArtifactRef) ([]byte, error)
}

// Load fetches and decodes the records refs point at, in order. It returns
// an error wrapping ErrBadRecord for a record that does not decode or whose
// hash does not match its request, or the store's error.
func Load(ctx context.Context, store Getter, refs []events.ExchangeRef) ([]Record, error) {
	out := make([]Record, 0, len(refs))
	for _, ref := range refs {
		raw, err := store.Get(ctx, ref.Ref)
		if err != nil {
			return nil, fmt.Errorf("could not load exchange %s: %w", ref.Hash, err)
		}
		var r Record
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrBadRecord, ref.Ref.Name, err)
		}
		if r.Version != Version || r.Hash != ref.Hash || r.Request.Hash() != r.Hash {
			return nil, fmt.Errorf("%w: %s: version %d, hash %s does not match its reference or request", ErrBadRecord, ref.Ref.Name, r.Version, r.Hash)
		}
		out = append(out, r)
	}
	return out, nil
}

// DriftError describes a request that was not recorded: the first field
// that differs from the request recorded at the same phase, attempt and
// step (or, when none was, Field is "request").
type DriftError struct {
	Phase   string
	Attempt int
	Step    int
	// Hash is the new request's hash.
	Hash string
	// Field is the first differing field, e.g. "messages[1].content".
	Field string
	// Recorded and Got are short excerpts of the field's two values.
	Recorded, Got string
}

func (e *DriftError) Error() string {
	return fmt.Sprintf("%s attempt %d step %d: request %.12s was not recorded: %s differs (recorded %q, now %q)",
		e.Phase, e.Attempt, e.Step, e.Hash, e.Field, e.Recorded, e.Got)
}

// Unwrap matches ErrDrift and llm.ErrRejected: a phase cannot go on.
func (e *DriftError) Unwrap() []error { return []error{ErrDrift, llm.ErrRejected} }

// Replayer is an llm.Provider answering from recorded exchanges by request
// hash. Safe for concurrent use.
type Replayer struct {
	redact  func(string) string
	answers map[string]Record
	failed  map[string]Record
	records []Record

	mu     sync.Mutex
	drifts []DriftError
	served int
}

// NewReplayer answers from records. redact must be the redaction the
// records were made with (nil: none), so that hashes compare.
func NewReplayer(records []Record, redact func(string) string) *Replayer {
	p := &Replayer{redact: redact, answers: map[string]Record{}, failed: map[string]Record{}, records: records}
	for _, r := range records {
		if r.Response != nil {
			if _, ok := p.answers[r.Hash]; !ok {
				p.answers[r.Hash] = r
			}
		} else if _, ok := p.failed[r.Hash]; !ok {
			p.failed[r.Hash] = r
		}
	}
	return p
}

// Complete answers with the recorded response of an equal request. A
// request recorded only as failed fails again, with an error wrapping
// llm.ErrRejected. A request that was not recorded returns a *DriftError,
// which is also kept for Drifts.
func (p *Replayer) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, fmt.Errorf("%w: %w", llm.ErrUnavailable, err)
	}
	c := Canonical(req, p.redact)
	h := c.Hash()
	if r, ok := p.answers[h]; ok {
		p.mu.Lock()
		p.served++
		p.mu.Unlock()
		return llm.Response{Content: r.Response.Content, Model: r.Response.Model, Usage: r.Response.Usage,
			Duration: time.Duration(r.DurationMS) * time.Millisecond}, nil
	}
	if r, ok := p.failed[h]; ok {
		return llm.Response{}, fmt.Errorf("%w: recorded failure: %s", llm.ErrRejected, r.Error)
	}
	d := DriftError{Phase: req.Phase, Attempt: req.Attempt, Step: req.Step, Hash: h, Field: "request",
		Recorded: "(nothing recorded at this phase, attempt and step)", Got: excerpt(c.Model, 0)}
	for _, r := range p.records {
		if r.Phase == req.Phase && r.Attempt == req.Attempt && r.Step == req.Step {
			d.Field, d.Recorded, d.Got = FirstDifference(r.Request, c)
			break
		}
	}
	p.mu.Lock()
	p.drifts = append(p.drifts, d)
	p.mu.Unlock()
	return llm.Response{}, &d
}

// Drifts returns the unrecorded requests seen so far, in order.
func (p *Replayer) Drifts() []DriftError {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]DriftError(nil), p.drifts...)
}

// Served counts the requests answered from the records.
func (p *Replayer) Served() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.served
}
