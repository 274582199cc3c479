package llm

import (
	"fmt"
	"math"
)

// Price is what a model costs per million tokens, in whatever currency
// the configuration uses throughout.
type Price struct {
	// InputPerMTok is the price of a million prompt tokens.
	InputPerMTok float64 `json:"inputPerMTok"`
	// OutputPerMTok is the price of a million completion tokens.
	OutputPerMTok float64 `json:"outputPerMTok"`
}

// Pricing maps model names to prices; the key "*" prices every other
// model of the provider.
type Pricing map[string]Price

// Validate rejects negative and non-finite prices.
func (p Pricing) Validate() error {
	for model, pr := range p {
		for _, v := range []float64{pr.InputPerMTok, pr.OutputPerMTok} {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: pricing of %q: prices must be finite and >= 0", ErrInvalidConfig, model)
			}
		}
	}
	return nil
}

// Cost is what usage of model costs, and whether the model has a price.
func (p Pricing) Cost(model string, u Usage) (float64, bool) {
	pr, ok := p[model]
	if !ok {
		pr, ok = p["*"]
	}
	if !ok {
		return 0, false
	}
	return (float64(u.PromptTokens)*pr.InputPerMTok + float64(u.CompletionTokens)*pr.OutputPerMTok) / 1e6, true
}
