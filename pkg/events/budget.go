package events

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Budget is a per-run limit on model use: tokens, and cost in the unit of
// the configured prices. Zero means no limit.
type Budget struct {
	Tokens int     `json:"tokens,omitempty"`
	Cost   float64 `json:"cost,omitempty"`
}

// Validate rejects negative or non-finite limits.
func (b Budget) Validate() error {
	if b.Tokens < 0 || b.Cost < 0 || math.IsNaN(b.Cost) || math.IsInf(b.Cost, 0) {
		return fmt.Errorf("budget: tokens %d and cost %g must be finite and >= 0", b.Tokens, b.Cost)
	}
	return nil
}

// Add returns b raised by x (a limit of 0 stays unlimited).
func (b Budget) Add(x Budget) Budget {
	if b.Tokens > 0 {
		b.Tokens += x.Tokens
	}
	if b.Cost > 0 {
		b.Cost += x.Cost
	}
	return b
}

// Spend is model use: tokens and their cost (0 without prices).
// Estimated is set when a provider reported no usage and the tokens were
// estimated from the text (4 bytes a token).
type Spend struct {
	Tokens    int     `json:"tokens"`
	Cost      float64 `json:"cost,omitempty"`
	Estimated bool    `json:"estimated,omitempty"`
}

// Plus adds two spends.
func (s Spend) Plus(x Spend) Spend {
	return Spend{Tokens: s.Tokens + x.Tokens, Cost: s.Cost + x.Cost, Estimated: s.Estimated || x.Estimated}
}

// SpendByPhase is a run's spend per phase.
type SpendByPhase map[string]Spend

// Total sums the phases.
func (m SpendByPhase) Total() Spend {
	var t Spend
	for _, s := range m {
		t = t.Plus(s)
	}
	return t
}

// String is "tokens N (phase N, …)", with costs when known.
func (m SpendByPhase) String() string {
	if len(m) == 0 {
		return "-"
	}
	phases := make([]string, 0, len(m))
	for p := range m {
		phases = append(phases, p)
	}
	sort.Strings(phases)
	parts := make([]string, 0, len(m))
	for _, p := range phases {
		parts = append(parts, fmt.Sprintf("%s %d", p, m[p].Tokens))
	}
	t := m.Total()
	s := fmt.Sprintf("%d tok", t.Tokens)
	if t.Cost > 0 {
		s += fmt.Sprintf(" %.4f", t.Cost)
	}
	return s + " (" + strings.Join(parts, ", ") + ")"
}

// Exhausted says whether spent reaches a limit of b, and which.
func (b Budget) Exhausted(spent Spend) (bool, string) {
	switch {
	case b.Tokens > 0 && spent.Tokens >= b.Tokens:
		return true, fmt.Sprintf("tokens %d of %d", spent.Tokens, b.Tokens)
	case b.Cost > 0 && spent.Cost >= b.Cost:
		return true, fmt.Sprintf("cost %.4f of %.4f", spent.Cost, b.Cost)
	}
	return false, ""
}

// With returns a copy of m with s added to phase.
func (m SpendByPhase) With(phase string, s Spend) SpendByPhase {
	if s == (Spend{}) {
		return m
	}
	out := make(SpendByPhase, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out[phase] = out[phase].Plus(s)
	return out
}
