package critic

import (
	"context"
	"fmt"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/pmstate"
)

// lesson is the repository lesson a failed attempt teaches, or "" when it
// teaches none: a run's Nth failed attempt (memory.lessonAfterFailures,
// spec §6 "3x failures") writes one lesson summarising the failures so
// far. run.Failures already includes this attempt.
func (s *Service) lesson(run events.Run, attempt int) string {
	n := s.d.Config.Memory.LessonAfterFailures
	if len(run.Failures) != n {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: failed %d attempts:", short(run.Request.Request, 80), n)
	for _, f := range run.Failures {
		b.WriteString(" " + short(f, 600/n) + ";")
	}
	return s.d.Redactor.String(strings.TrimSuffix(b.String(), ";"))
}

// learnFromFailure records the attempt's failure summary for the next
// runs on the project (their architect and builder see it).
func (s *Service) learnFromFailure(ctx context.Context, in events.Envelope, bd events.BuiltData, reason string) error {
	err := s.d.PM.AddFailure(ctx, bd.Run.Project, pmstate.Failure{
		RunID: in.RunID(), Attempt: in.Attempt, At: s.d.Now().UTC(),
		Intent: s.d.Redactor.String(short(bd.Run.Request.Request, 200)),
		Reason: s.d.Redactor.String(short(reason, 400)),
	}, 0)
	if err != nil {
		return fmt.Errorf("could not record the failure summary: %w", err)
	}
	return nil
}

// learnFromPass records a golden example of the passed run: its intent,
// plan summary, touched files and a patch summary, bounded and redacted.
func (s *Service) learnFromPass(ctx context.Context, in events.Envelope, bd events.BuiltData, diff string) error {
	var files []string
	var patch strings.Builder
	fmt.Fprintf(&patch, "+%d -%d:", bd.Change.Added, bd.Change.Removed)
	for _, f := range bd.Change.Files {
		files = append(files, f.Path)
		fmt.Fprintf(&patch, " %s %s;", f.Op, f.Path)
	}
	if diff != "" {
		patch.WriteString("\n" + diff)
	}
	err := s.d.PM.AddGolden(ctx, bd.Run.Project, pmstate.Golden{
		RunID: in.RunID(), At: s.d.Now().UTC(),
		Intent: s.d.Redactor.String(bd.Run.Request.Request),
		Plan:   s.d.Redactor.String(bd.Plan.Summary),
		Files:  files,
		Patch:  clip(s.d.Redactor.String(patch.String()), pmstate.MaxGoldenPatchBytes), // redact, then cut: a cut secret would escape the patterns
	}, s.d.Config.Memory.MaxGoldenExamples)
	if err != nil {
		return fmt.Errorf("could not record the golden example: %w", err)
	}
	return nil
}
