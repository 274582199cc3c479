package librarian

import (
	"context"
	"fmt"
	"regexp"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
)

// preferenceEntry is how a preference is kept in the project's L1 memory
// when no Docdex stores it: "preference (<category>): <content>".
var preferenceEntry = regexp.MustCompile(`^preference \((style|tooling|constraint|workflow)\): (.+)$`)

func preferenceText(p events.Preference) string {
	return fmt.Sprintf("preference (%s): %s", p.Category, p.Content)
}

func parsePreferenceEntry(e string) (category, content string, ok bool) {
	m := preferenceEntry.FindStringSubmatch(e)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// keepPreferences appends preferences to the project's L1 memory, once.
func (s *Service) keepPreferences(ctx context.Context, project string, prefs []events.Preference) error {
	if len(prefs) == 0 {
		return nil
	}
	_, err := s.d.PM.Update(ctx, project, func(cur cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		have := map[string]bool{}
		for _, e := range cur.L1Memory.Entries {
			have[e] = true
		}
		var ops []cognition.L1MemoryPatchOp
		for _, p := range prefs {
			text := s.d.Redactor.String(preferenceText(p))
			if !have[text] {
				have[text] = true
				ops = append(ops, cognition.AppendOp(text))
			}
		}
		return nil, ops, nil
	})
	return err
}
