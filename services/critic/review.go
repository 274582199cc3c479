package critic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/codali-dev/codali/pkg/answers"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/worker"
)

// Bounds of what the review prompt shows the model.
const (
	maxReviewDiff   = 48 << 10
	maxReviewOutput = 2 << 10
)

const reviewSystem = `You are the Critic of a coding pipeline. Review the change against the request and the plan. Do not write code.
The checks have passed and the change stays within the plan's files; judge whether it does what was asked, safely and completely.
Answer with one JSON object only:
{"status": "pass" | "concerns" | "fail",
 "reasons": [one string per problem or concern],
 "retryable": true if another attempt can fix a failure,
 "retry_phase": "builder" when the plan is right but the implementation is not, "architect" when the plan must change,
 "review_notes": string}`

// hasReviewRoute reports whether the critic has a model to review with:
// routing.critic, or the role fallback $CODALI_PROVIDER (spec §7). Without
// one the review is skipped.
func (s *Service) hasReviewRoute() bool {
	if _, ok := s.d.Config.Routing[events.ServiceCritic]; ok {
		return true
	}
	return s.d.Getenv("CODALI_PROVIDER") != ""
}

// review asks the critic's model for a verdict on an attempt whose checks
// and alignment passed. A contract failure or a rejected request is
// permanent; an unavailable model is retried by redelivery.
func (s *Service) review(ctx context.Context, in events.Envelope, bd events.BuiltData, diff string, checks []events.CheckResult, align events.Alignment) (events.Review, []events.ModelUsage, error) {
	if !s.hasReviewRoute() {
		return events.Review{Status: events.ReviewSkipped, Skipped: "no model route for the critic (routing.critic or CODALI_PROVIDER)"}, nil, nil
	}
	var r events.Review
	a, err := s.d.Ask(ctx, llm.Request{Phase: events.ServiceCritic, RunID: in.RunID(), Attempt: in.Attempt, Step: 1,
		Messages: reviewPrompt(bd, diff, checks, align)}, answers.Review(), func(doc []byte) error {
		r = events.Review{}
		if err := json.Unmarshal(doc, &r); err != nil {
			return fmt.Errorf("review JSON: %w", err)
		}
		if r.Status == events.ReviewFail && r.Retryable && r.RetryPhase == "" {
			return errors.New("/retry_phase: required when a failure is retryable (architect or builder)")
		}
		return nil
	})
	switch {
	case err == nil:
	case errors.Is(err, llm.ErrContract):
		return events.Review{}, a.Usage, worker.Permanent(events.WithUsage(fmt.Errorf("critic model gave no valid review: %w", err), a.Usage))
	case errors.Is(err, llm.ErrRejected), errors.Is(err, llm.ErrInvalidConfig), errors.Is(err, config.ErrInvalid):
		return events.Review{}, a.Usage, worker.Permanent(events.WithUsage(fmt.Errorf("critic model rejected the review request: %w", err), a.Usage))
	default:
		return events.Review{}, a.Usage, fmt.Errorf("critic model unavailable: %w", err)
	}
	r.Provider = a.Route.Name
	if len(a.Calls) > 0 {
		r.Model = a.Calls[len(a.Calls)-1].Model
	}
	for i, reason := range r.Reasons {
		r.Reasons[i] = s.d.Redactor.String(reason)
	}
	r.Notes = s.d.Redactor.String(r.Notes)
	return r, a.Usage, nil
}

func reviewPrompt(bd events.BuiltData, diff string, checks []events.CheckResult, align events.Alignment) []llm.Message {
	var b strings.Builder
	fmt.Fprintf(&b, "Request:\n%s\n\nPlan: %s\n", bd.Run.Request.Request, bd.Plan.Summary)
	for i, st := range bd.Plan.Steps {
		fmt.Fprintf(&b, "%d. %s", i+1, st.Description)
		if len(st.Files) > 0 {
			fmt.Fprintf(&b, " (files: %s)", strings.Join(st.Files, ", "))
		}
		b.WriteString("\n")
	}
	if len(bd.Plan.Risks) > 0 {
		fmt.Fprintf(&b, "Risks: %s\n", strings.Join(bd.Plan.Risks, "; "))
	}
	fmt.Fprintf(&b, "\nTouched files: %s\n", strings.Join(align.Touched, ", "))
	if len(align.UnmatchedTargets) > 0 {
		fmt.Fprintf(&b, "Plan targets not touched: %s\n", strings.Join(align.UnmatchedTargets, ", "))
	}
	b.WriteString("\nChecks:\n")
	for _, c := range checks {
		fmt.Fprintf(&b, "- %s (%s): exit %d\n", c.Name, strings.Join(c.Command, " "), c.ExitCode)
		if out := strings.TrimSpace(c.Output); out != "" {
			fmt.Fprintf(&b, "%s\n", clip(out, maxReviewOutput))
		}
	}
	if bd.Summary != "" {
		fmt.Fprintf(&b, "\nThe builder's summary: %s\n", bd.Summary)
	}
	fmt.Fprintf(&b, "\nDiff:\n%s\n", clip(diff, maxReviewDiff))
	return []llm.Message{{Role: "system", Content: reviewSystem}, {Role: "user", Content: b.String()}}
}

// clip bounds s to n bytes on a rune boundary, keeping its lines.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "\n… (truncated)"
}
