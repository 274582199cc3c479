package budget_test

import (
	"math"
	"testing"

	"github.com/codali-dev/codali/pkg/budget"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
)

func TestUsePricesReportedAndEstimatedTokens(t *testing.T) {
	pricing := llm.Pricing{"big": {InputPerMTok: 3, OutputPerMTok: 15}, "*": {InputPerMTok: 1, OutputPerMTok: 1}}
	req := llm.Request{Model: "big", Messages: []llm.Message{{Content: "12345678"}}}
	got := budget.Use(req, llm.Response{Model: "big", Usage: llm.Usage{PromptTokens: 1000, CompletionTokens: 100}}, pricing)
	if got.Tokens != 1100 || got.Estimated || got.Cost != (1000*3+100*15)/1e6 {
		t.Fatalf("reported usage: %+v", got)
	}
	got = budget.Use(req, llm.Response{Content: "abcde"}, nil)
	if got.Tokens != 2+2 || !got.Estimated || got.Cost != 0 {
		t.Fatalf("estimated usage: %+v", got)
	}
	got = budget.Use(llm.Request{Model: "other"}, llm.Response{Usage: llm.Usage{PromptTokens: 1e6}}, pricing)
	if got.Cost != 1 {
		t.Fatalf("wildcard price: %+v", got)
	}
}

func TestLimitAndExhausted(t *testing.T) {
	lim := config.Limits{MaxRunTokens: 100}
	run := events.Run{}
	if b := budget.Limit(lim, run); b.Tokens != 100 {
		t.Fatalf("configured limit: %+v", b)
	}
	run.Request.Options.Budget = &events.Budget{Tokens: 10}
	run.BudgetExtra = &events.Budget{Tokens: 5, Cost: 1}
	b := budget.Limit(lim, run)
	if b.Tokens != 15 || b.Cost != 0 {
		t.Fatalf("request budget plus extension: %+v (a cost extension on no cost limit stays unlimited)", b)
	}
	if done, _ := b.Exhausted(events.Spend{Tokens: 14}); done {
		t.Fatal("exhausted below the limit")
	}
	if done, what := b.Exhausted(events.Spend{Tokens: 15}); !done || what != "tokens 15 of 15" {
		t.Fatalf("not exhausted at the limit: %q", what)
	}
	if err := (events.Budget{Tokens: -1}).Validate(); err == nil {
		t.Fatal("negative budget accepted")
	}
	if err := (llm.Pricing{"m": {InputPerMTok: -1}}).Validate(); err == nil {
		t.Fatal("negative price accepted")
	}
}

func TestOfUsagePricesEachModel(t *testing.T) {
	pricing := llm.Pricing{"big": {InputPerMTok: 10, OutputPerMTok: 20}, "*": {InputPerMTok: 1, OutputPerMTok: 2}}
	usage := []events.ModelUsage{
		{Phase: "architect", Model: "big", Calls: 1, InputTokens: 1000, OutputTokens: 500},
		{Phase: "architect", Model: "small", Calls: 2, InputTokens: 2000, OutputTokens: 1000},
	}
	got := budget.OfUsage(usage, pricing)
	want := (1000*10.0 + 500*20.0 + 2000*1.0 + 1000*2.0) / 1e6
	if got.Tokens != 4500 || math.Abs(got.Cost-want) > 1e-12 || got.Estimated {
		t.Fatalf("OfUsage = %+v, want 4500 tokens, cost %g", got, want)
	}
	if s := budget.OfUsage(usage, nil); s.Tokens != 4500 || s.Cost != 0 {
		t.Fatalf("without prices: %+v", s)
	}
	if s := budget.OfUsage(nil, pricing); s != (events.Spend{}) {
		t.Fatalf("no usage: %+v", s)
	}
}
