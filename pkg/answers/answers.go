// Package answers holds the JSON Schemas of the phases' model answers —
// the architect's plan, the builder's turn and the critic's review. Each
// schema is the single source of truth: the model providers send it to the
// server (Ollama format, OpenAI response_format, llama.cpp grammar) and
// llm.CompleteJSON validates every answer against it.
package answers

import (
	_ "embed"

	"github.com/codali-dev/codali/pkg/llm"
)

var (
	//go:embed plan.schema.json
	planJSON []byte
	//go:embed turn.schema.json
	turnJSON []byte
	//go:embed review.schema.json
	reviewJSON []byte
)

// Compiled once at start-up: the schemas are part of the program, and a
// broken one fails every test of this package.
var (
	planSchema   = llm.MustCompileSchema("codali_plan", planJSON)
	turnSchema   = llm.MustCompileSchema("codali_builder_turn", turnJSON)
	reviewSchema = llm.MustCompileSchema("codali_review", reviewJSON)
)

// Plan is the schema of the architect's plan (events.Plan).
func Plan() *llm.Schema { return planSchema }

// Turn is the schema of one builder turn.
func Turn() *llm.Schema { return turnSchema }

// Review is the schema of the critic's model review (events.Review).
func Review() *llm.Schema { return reviewSchema }

// Review statuses.
const (
	// ReviewPass: the change does what was asked.
	ReviewPass = "pass"
	// ReviewConcerns: acceptable, with reservations (integrity amber).
	ReviewConcerns = "concerns"
	// ReviewFail: the change must not be accepted.
	ReviewFail = "fail"
)
