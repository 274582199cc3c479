// Package budget meters a run's model use and decides when it reaches the
// run's budget: tokens as the provider reports them (estimated from the
// text when it reports none) and their cost under the provider's prices.
package budget

import (
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
)

// bytesPerToken is the estimate used when a provider reports no usage.
const bytesPerToken = 4

// Use is the spend of one completion: the provider's token counts, or an
// estimate from the prompt and answer sizes when it reports none, priced
// by pricing for the model that answered (or the requested one).
func Use(req llm.Request, resp llm.Response, pricing llm.Pricing) events.Spend {
	u := resp.Usage
	estimated := false
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		in := 0
		for _, m := range req.Messages {
			in += len(m.Content)
		}
		u = llm.Usage{PromptTokens: (in + bytesPerToken - 1) / bytesPerToken, CompletionTokens: (len(resp.Content) + bytesPerToken - 1) / bytesPerToken}
		estimated = true
	}
	model := resp.Model
	if model == "" {
		model = req.Model
	}
	cost, _ := pricing.Cost(model, u)
	return events.Spend{Tokens: u.PromptTokens + u.CompletionTokens, Cost: cost, Estimated: estimated}
}

// Limit is a run's budget: the request's options.budget, else the
// configured limits, raised by what was extended.
func Limit(lim config.Limits, run events.Run) events.Budget {
	b := events.Budget{Tokens: lim.MaxRunTokens, Cost: lim.MaxRunCost}
	if o := run.Request.Options.Budget; o != nil {
		b = *o
	}
	if run.BudgetExtra != nil {
		b = b.Add(*run.BudgetExtra)
	}
	return b
}

// OfUsage is the spend of recorded model usage (events.ModelUsage, as
// app.Deps.Ask reports it per call), priced by pricing for each model.
// Usage without tokens (a provider that reports none) adds no tokens.
func OfUsage(usage []events.ModelUsage, pricing llm.Pricing) events.Spend {
	var s events.Spend
	for _, u := range usage {
		lu := llm.Usage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens}
		cost, _ := pricing.Cost(u.Model, lu)
		s = s.Plus(events.Spend{Tokens: lu.PromptTokens + lu.CompletionTokens, Cost: cost})
	}
	return s
}
