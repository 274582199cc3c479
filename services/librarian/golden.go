package librarian

import (
	"context"
	"fmt"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/pmstate"
)

// maxGoldenInBundle bounds the golden examples a bundle carries.
const maxGoldenInBundle = 3

// addGolden ranks the project's golden examples (passed runs, see
// pmstate.RankGolden) against the request and puts the best into the
// bundle. A project state that cannot be read is a warning, not a failure.
func (s *Service) addGolden(ctx context.Context, project, request string, b *events.ContextBundle) {
	l, err := s.d.PM.Learning(ctx, project)
	if err != nil {
		b.Warnings = append(b.Warnings, fmt.Sprintf("golden examples unavailable: %v", err))
		return
	}
	for _, g := range pmstate.RankGolden(l.Golden, request, maxGoldenInBundle) {
		b.GoldenExamples = append(b.GoldenExamples, events.GoldenExample{Intent: g.Intent, Plan: g.Plan, Files: g.Files, Patch: g.Patch})
	}
}
