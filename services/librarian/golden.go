package librarian

import (
	"fmt"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/future"
	"github.com/codali-dev/codali/pkg/pmstate"
)

// maxGoldenInBundle bounds the golden examples a bundle carries.
const maxGoldenInBundle = 3

// addGolden ranks the project's golden examples (passed runs, see
// pmstate.RankGolden), read by learning, against the request and puts the
// best into the bundle. A learning record that cannot be read is a
// warning, not a failure.
func addGolden(learning *future.Future[pmstate.Learning], request string, b *events.ContextBundle) {
	l, err := learning.Wait()
	if err != nil {
		b.Warnings = append(b.Warnings, fmt.Sprintf("golden examples unavailable: %v", err))
		return
	}
	for _, g := range pmstate.RankGolden(l.Golden, request, maxGoldenInBundle) {
		b.GoldenExamples = append(b.GoldenExamples, events.GoldenExample{Intent: g.Intent, Plan: g.Plan, Files: g.Files, Patch: g.Patch})
	}
}
