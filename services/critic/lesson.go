package critic

import (
	"context"

	"github.com/codali-dev/codali/pkg/docdex"
	"github.com/codali-dev/codali/pkg/events"
)

// saveLesson stores a lesson in Docdex repository memory
// (docdex_memory_save, codali-cognitive-architecture §6) when a daemon is
// configured. A redelivered failure does not learn twice: a lesson Docdex
// already recalls verbatim is not saved again. It reports whether Docdex
// holds the lesson; on false the caller keeps it in the project's L1
// memory as without Docdex.
func (s *Service) saveLesson(ctx context.Context, in events.Envelope, run events.Run, lesson string) bool {
	if s.d.Docdex == nil || lesson == "" {
		return false
	}
	c := s.d.Docdex.With(docdex.Scope{Root: run.Request.Repo.Path, AgentID: run.Request.Options.AgentID})
	if rc, err := c.MemoryRecall(ctx, lesson, 5); err == nil {
		for _, m := range rc.Results {
			if m.Content == lesson {
				return true
			}
		}
	}
	_, err := c.MemorySave(ctx, lesson, map[string]any{"source": "codali-critic", "project": run.Project, "run_id": in.RunID(), "attempt": in.Attempt})
	if err != nil {
		s.d.Log.Warn("could not save the lesson to docdex; keeping it in project memory", "err", err)
		return false
	}
	return true
}
