package builder

import (
	"context"
	"fmt"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
)

// maxFailureSummaries bounds the earlier runs' failures shown.
const maxFailureSummaries = 5

// learning is the prompt section with what the builder should know beyond
// the plan: the critic's reasons when the plan was re-emitted to it, the
// project's lessons, and the failure summaries of earlier runs on the
// project. "" when there is nothing.
func (s *Service) learning(ctx context.Context, runID string, pd events.PlanData, bundle *events.ContextBundle) (string, error) {
	var b strings.Builder
	if len(pd.Feedback) > 0 {
		b.WriteString("\nThe critic rejected the previous attempt of this same plan. Fix these problems:\n")
		for _, f := range pd.Feedback {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	if bundle != nil && len(bundle.Memory) > 0 {
		b.WriteString("\nLessons from earlier runs on this project:\n")
		for _, m := range bundle.Memory {
			fmt.Fprintf(&b, "- %s\n", m.Text)
		}
	}
	l, err := s.d.PM.Learning(ctx, pd.Run.Project)
	if err != nil {
		return "", fmt.Errorf("could not read what the project learned: %w", err)
	}
	var failures []string
	for _, f := range l.Failures {
		if f.RunID != runID {
			failures = append(failures, fmt.Sprintf("- %s: attempt %d: %s\n", f.Intent, f.Attempt, f.Reason))
		}
	}
	if len(failures) > maxFailureSummaries {
		failures = failures[len(failures)-maxFailureSummaries:]
	}
	if len(failures) > 0 {
		b.WriteString("\nEarlier failed attempts on this repository (avoid repeating them):\n")
		b.WriteString(strings.Join(failures, ""))
	}
	return b.String(), nil
}
