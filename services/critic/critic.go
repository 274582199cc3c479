// Package critic is phase 4 of the Codali pipeline: it applies the
// builder's change to a fresh copy of the repository, runs the plan's
// verification commands (each through the policy gate), and decides: pass,
// retry through the architect with the failure as feedback, or fail once
// the retry limit is reached. It teaches the project: failures become L1
// memory lessons, a pass prunes the run's finished goals.
package critic

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/activity"
	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/pmstate"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/runcodex"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/codali-dev/codali/pkg/workspace"
)

// verdictReserve is kept free at the end of the handler's time to publish
// the verdict after the checks.
const verdictReserve = 5 * time.Second

// Component is the critic as a hostable component.
func Component() app.Component {
	return app.Component{Name: events.ServiceCritic, NewHandler: New}
}

// Service is the critic.
type Service struct {
	d *app.Deps
}

// New returns the critic's handler.
func New(ctx context.Context, d *app.Deps) (worker.Handler, error) {
	if err := d.Workspaces.CheckGit(ctx); err != nil {
		return nil, err
	}
	return (&Service{d: d}).Handle, nil
}

// Handle turns a `built` event into `passed`, `retry` or `failed`.
func (s *Service) Handle(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
	var bd events.BuiltData
	if err := events.DecodeData(in, &bd); err != nil {
		return nil, worker.Permanent(err)
	}
	checks, reason, err := s.verify(ctx, in, bd)
	if err != nil {
		return nil, err
	}
	if reason == "" {
		return s.pass(ctx, in, bd, checks)
	}
	return s.reject(ctx, in, bd, checks, reason)
}

// verify applies the change and runs the checks. A non-empty reason means
// the attempt failed; an error means the critic itself could not work.
func (s *Service) verify(ctx context.Context, in events.Envelope, bd events.BuiltData) ([]events.CheckResult, string, error) {
	if bd.Change.Empty() {
		return nil, "the builder made no change", nil
	}
	diff, err := s.d.Artifacts.LoadDiff(ctx, bd.Change)
	if err != nil {
		err = fmt.Errorf("could not load the change: %w", err)
		if artifacts.IsLost(err) {
			return nil, "", worker.Permanent(err)
		}
		return nil, "", err
	}
	ws, err := s.d.Workspaces.Prepare(ctx, in.RunID(), in.Attempt, events.ServiceCritic, bd.Run.Request.Repo)
	if err != nil {
		if errors.Is(err, workspace.ErrRepo) && !errors.Is(err, workspace.ErrClone) {
			return nil, "", worker.Permanent(err)
		}
		return nil, "", err
	}
	defer s.d.CloseWorkspace(ws)
	if err := ws.Apply(ctx, diff); err != nil {
		if errors.Is(err, workspace.ErrApply) {
			return nil, fmt.Sprintf("the change does not apply to the repository: %v", err), nil
		}
		return nil, "", err
	}
	env := workspace.CommandEnv(s.d.Getenv)
	cfg := s.d.Config.Critic
	var checks []events.CheckResult
	var failed []string
	for _, v := range bd.Plan.Verify {
		c := events.CheckResult{Name: v.Name, Command: v.Command}
		d := s.d.Policy.Evaluate(policy.ToolCall{Tool: "run_command", Command: v.Command})
		if d.Blocked {
			c.ExitCode = -1
			c.Output = "blocked by policy: " + strings.Join(d.Reasons, "; ")
			checks = append(checks, c)
			failed = append(failed, fmt.Sprintf("check %q blocked by policy", v.Name))
			continue
		}
		timeout := time.Duration(cfg.VerifyTimeoutMS) * time.Millisecond
		if v.TimeoutMS > 0 {
			timeout = time.Duration(v.TimeoutMS) * time.Millisecond
		}
		// A check never outlives the handler: what does not fit in the time
		// left fails the attempt with a verdict instead of timing the whole
		// handler out (which would only be redelivered to time out again).
		if dl, ok := ctx.Deadline(); ok {
			left := time.Until(dl) - verdictReserve
			if left <= 0 {
				c.ExitCode, c.Output = -1, "not run: no time left in limits.timeoutMs"
				checks = append(checks, c)
				failed = append(failed, fmt.Sprintf("check %q not run: out of time", v.Name))
				continue
			}
			timeout = min(timeout, left)
		}
		actx, end := activity.Begin(ctx, activity.Event{Kind: activity.Check, Name: v.Name, Detail: s.d.Redactor.String(strings.Join(v.Command, " "))})
		res, err := workspace.Run(actx, ws.Dir, v.Command, env, timeout, cfg.OutputBytes)
		end(checkErr(res, err))
		c.DurationMS = res.Duration.Milliseconds()
		switch {
		case err != nil:
			c.ExitCode, c.Output = -1, err.Error()
		case ctx.Err() != nil:
			return nil, "", fmt.Errorf("verification interrupted: %w", ctx.Err())
		default:
			c.ExitCode, c.Output, c.OK = res.ExitCode, s.d.Redactor.String(res.Output), res.ExitCode == 0
		}
		if !c.OK {
			failed = append(failed, fmt.Sprintf("check %q (%s) exited %d", v.Name, strings.Join(v.Command, " "), c.ExitCode))
		}
		checks = append(checks, c)
	}
	return checks, strings.Join(failed, "; "), nil
}

func (s *Service) pass(ctx context.Context, in events.Envelope, bd events.BuiltData, checks []events.CheckResult) ([]events.Envelope, error) {
	run := bd.Run
	var warnings []string
	for _, t := range bd.Tools {
		if t.Gate.Blocked {
			warnings = append(warnings, fmt.Sprintf("step %d: %s blocked: %s", t.Step, t.Tool, strings.Join(t.Gate.Reasons, "; ")))
		}
		for _, w := range t.Gate.Warnings {
			warnings = append(warnings, fmt.Sprintf("step %d: %s: %s", t.Step, t.Tool, w))
		}
	}
	integrity := events.IntegrityGreen
	if len(warnings) > 0 {
		integrity = events.IntegrityAmber
	}
	goal := pmstate.RunGoalID(in.RunID())
	res, err := s.d.PM.Update(ctx, run.Project, func(cur cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		if _, ok := cur.GoalTree.UserPartition.Find(goal); !ok {
			return nil, nil, nil
		}
		return []cognition.GoalTreePatchOp{cognition.PruneOp(goal)}, nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("could not update the project state: %w", err)
	}
	if res.Rev > 0 {
		run.PMRev = res.Rev
	}
	if run.Codex, err = s.codexRun(in, bd, run, checks, integrity); err != nil {
		return nil, worker.Permanent(err)
	}
	plan, change := bd.Plan, bd.Change
	out, err := in.Follow(events.KindPassed, in.Attempt, events.SourceFor(events.ServiceCritic), s.d.Now(), events.VerdictData{
		Run: run, Status: events.StatusPassed, Phase: events.ServiceCritic,
		Reason:   fmt.Sprintf("%d of %d checks passed on attempt %d", len(checks), len(checks), in.Attempt),
		Attempts: in.Attempt, Integrity: integrity, Checks: checks, Change: &change, Plan: &plan, Warnings: warnings,
	})
	if err != nil {
		return nil, worker.Permanent(err)
	}
	return []events.Envelope{out}, nil
}

func (s *Service) reject(ctx context.Context, in events.Envelope, bd events.BuiltData, checks []events.CheckResult, reason string) ([]events.Envelope, error) {
	run := bd.Run
	run.Failures = append(append([]string(nil), run.Failures...), fmt.Sprintf("attempt %d: %s", in.Attempt, reason))
	lesson := s.d.Redactor.String(fmt.Sprintf("%s: attempt %d failed: %s", short(run.Request.Request, 80), in.Attempt, short(reason, 240)))
	final := in.Attempt-1 >= run.MaxRetries
	goal := pmstate.RunGoalID(in.RunID())
	res, err := s.d.PM.Update(ctx, run.Project, func(cur cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		var goals []cognition.GoalTreePatchOp
		if _, ok := cur.GoalTree.UserPartition.Find(goal); ok && final {
			goals = append(goals, cognition.PruneOp(goal)) // the run is over: its goal too
		}
		for _, e := range cur.L1Memory.Entries {
			if e == lesson { // a redelivered event must not learn twice
				return goals, nil, nil
			}
		}
		return goals, []cognition.L1MemoryPatchOp{cognition.AppendOp(lesson)}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("could not update the project state: %w", err)
	}
	if res.Rev > 0 {
		run.PMRev = res.Rev
	}
	if !final {
		if run.Codex, err = s.codexRun(in, bd, run, checks, ""); err != nil {
			return nil, worker.Permanent(err)
		}
		out, err := in.Follow(events.KindRetry, in.Attempt+1, events.SourceFor(events.ServiceCritic), s.d.Now(), events.RetryData{
			Run: run, BundleRef: bd.BundleRef, Reason: reason, Checks: checks, Previous: bd.Plan,
		})
		if err != nil {
			return nil, worker.Permanent(err)
		}
		return []events.Envelope{out}, nil
	}
	if run.Codex, err = s.codexRun(in, bd, run, checks, events.IntegrityRed); err != nil {
		return nil, worker.Permanent(err)
	}
	plan, change := bd.Plan, bd.Change
	out, err := in.Follow(events.KindFailed, in.Attempt, events.SourceFor(events.ServiceCritic), s.d.Now(), events.VerdictData{
		Run: run, Status: events.StatusFailed, Phase: events.ServiceCritic,
		Reason:   fmt.Sprintf("verification failed after %d attempts (retry limit %d): %s", in.Attempt, run.MaxRetries, reason),
		Attempts: in.Attempt, Integrity: events.IntegrityRed, Checks: checks, Change: &change, Plan: &plan,
	})
	if err != nil {
		return nil, worker.Permanent(err)
	}
	return []events.Envelope{out}, nil
}

func (s *Service) codexRun(in events.Envelope, bd events.BuiltData, run events.Run, checks []events.CheckResult, integrity string) (string, error) {
	passed := 0
	for _, c := range checks {
		if c.OK {
			passed++
		}
	}
	blocked, warnings := events.GateCounts(bd.Tools)
	var files []string
	for _, f := range bd.Change.Files {
		files = append(files, f.Path)
	}
	return runcodex.Encode(runcodex.Facts{RunID: in.RunID(), Project: run.Project, Phase: events.ServiceCritic,
		Attempt: in.Attempt, MaxRetries: run.MaxRetries, Steps: len(bd.Plan.Steps), Actions: []string{"context", "plan", "edit", "verify"},
		Files: files, Failures: len(run.Failures), ToolCalls: len(bd.Tools), Blocked: blocked, Warnings: warnings,
		ChecksPassed: passed, ChecksTotal: len(checks), Integrity: integrity, PolicyHash: s.d.PolicyHash})
}

func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
