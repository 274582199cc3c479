package librarian

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/codali-dev/codali/pkg/budget"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/index"
	"github.com/codali-dev/codali/pkg/llm"
)

const expandSystem = `You are the Librarian of a coding pipeline. Turn the request into 1 to 3 focused code-search queries: identifiers, file paths, exact strings or a few keywords each. Do not answer the request.
Answer with one JSON object only: {"queries": [string, ...]}`

// maxQueryLen bounds one model-written query.
const maxQueryLen = 200

// queries derives the request's focused queries: the heuristic ones, or,
// with routing.librarian set, the model's 1-3 queries when its answer
// passes the schema (otherwise the heuristic ones and a warning).
func (a *Assembler) queries(ctx context.Context, r Request, b *events.ContextBundle) ([]string, events.Spend) {
	heuristic := index.FocusedQueries(r.Req.Request, maxQueries)
	if a.Model == nil {
		return heuristic, events.Spend{}
	}
	p, route, err := a.Model(events.ServiceLibrarian)
	if err != nil {
		b.Warnings = append(b.Warnings, fmt.Sprintf("librarian model unavailable (%v): heuristic queries used", err))
		return heuristic, events.Spend{}
	}
	user := "Request:\n" + r.Req.Request + "\n\nCandidate queries:\n- " + strings.Join(heuristic, "\n- ")
	req := llm.Request{Phase: events.ServiceLibrarian, RunID: r.RunID, Attempt: r.Attempt, Model: route.Route.Model,
		Temperature: route.Route.Temperature, Format: "json", MaxTokens: 256,
		Messages: []llm.Message{{Role: "system", Content: expandSystem}, {Role: "user", Content: user}}}
	resp, err := p.Complete(ctx, req)
	if err != nil {
		b.Warnings = append(b.Warnings, fmt.Sprintf("librarian model failed (%v): heuristic queries used", err))
		return heuristic, events.Spend{}
	}
	spent := budget.Use(req, resp, route.Provider.Pricing)
	qs, err := ParseQueries(resp.Content)
	if err != nil {
		b.Warnings = append(b.Warnings, fmt.Sprintf("librarian model answer rejected (%v): heuristic queries used", err))
		return heuristic, spent
	}
	return qs, spent
}

// ErrBadQueries is wrapped when a model's query answer does not fit the
// schema {"queries": [1-3 non-empty strings of at most 200 characters]}.
var ErrBadQueries = errors.New("bad query answer")

// ParseQueries checks a model's query answer against the schema and
// returns the distinct queries.
func ParseQueries(answer string) ([]string, error) {
	raw, err := llm.ExtractJSON(answer)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadQueries, err)
	}
	var v struct {
		Queries []string `json:"queries"`
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadQueries, err)
	}
	var out []string
	seen := map[string]bool{}
	for _, q := range v.Queries {
		q = strings.Join(strings.Fields(q), " ")
		if q == "" {
			return nil, fmt.Errorf("%w: empty query", ErrBadQueries)
		}
		if len(q) > maxQueryLen {
			return nil, fmt.Errorf("%w: query longer than %d characters", ErrBadQueries, maxQueryLen)
		}
		if !seen[strings.ToLower(q)] {
			seen[strings.ToLower(q)] = true
			out = append(out, q)
		}
	}
	if len(out) < 1 || len(out) > maxQueries {
		return nil, fmt.Errorf("%w: %d queries (want 1 to %d)", ErrBadQueries, len(out), maxQueries)
	}
	return out, nil
}
