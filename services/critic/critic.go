// Package critic is phase 4 of the Codali pipeline: it applies the
// builder's change to a fresh copy of the repository, holds every changed
// path and the line count to the policy gate, runs the plan's
// verification commands (each through the policy gate), and decides: pass,
// retry through the architect with the failure as feedback, or fail once
// the retry limit is reached. It teaches the project: failures become L1
// memory lessons, a pass prunes the run's finished goals.
package critic

import (
	"context"
	"errors"
	"fmt"
	"github.com/codali-dev/codali/pkg/budget"
	"slices"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/activity"
	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/changegate"
	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/pmstate"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/runcodex"
	"github.com/codali-dev/codali/pkg/sandbox"
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
	d.CheckSandbox(ctx)
	return (&Service{d: d}).Handle, nil
}

// Handle turns a `built` event into `passed`, `retry` or `failed`: it
// runs the plan's checks, compares the change with the plan (Align), and,
// when both pass and the critic has a model route, asks the model for a
// review.
func (s *Service) Handle(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
	var bd events.BuiltData
	if err := events.DecodeData(in, &bd); err != nil {
		return nil, worker.Permanent(err)
	}
	gate, err := s.d.GateFor(ctx, in.RunID(), bd.Run.Request)
	if err != nil {
		return nil, err
	}
	checks, reason, gateWarnings, diff, err := s.verify(ctx, in, bd, gate)
	if err != nil {
		return nil, err
	}
	j := judgement{checks: checks, diff: diff, gateWarnings: gateWarnings, retryPhase: events.RetryArchitect, policyHash: gate.Hash}
	if reason != "" {
		j.reasons = append(j.reasons, reason)
	}
	if !bd.Change.Empty() {
		a := Align(bd.Plan, bd.Change)
		j.alignment = &a
		if !a.OK {
			j.reasons = append(j.reasons, a.Reasons...)
			if reason == "" {
				// The checks pass but the builder strayed from a plan that
				// may well be right: the builder tries again.
				j.retryPhase = events.RetryBuilder
			}
		}
	}
	if len(j.reasons) > 0 {
		j.review = &events.Review{Status: events.ReviewSkipped, Skipped: "the attempt already failed its checks or its alignment with the plan"}
		return s.reject(ctx, in, bd, j)
	}
	if !s.d.Config.Critic.AlwaysReview && fastPath(bd, j, s.d.Config.Critic.FastPathMaxLines) {
		j.review = &events.Review{Status: events.ReviewSkipped, Skipped: FastPathSkip}
		return s.pass(ctx, in, bd, j)
	}
	r, usage, err := s.review(ctx, in, bd, diff, checks, *j.alignment)
	if err != nil {
		return nil, err
	}
	j.review, j.usage = &r, usage
	if r.Status == events.ReviewFail {
		j.reasons = append(j.reasons, prefixed("review: ", r.Reasons, "the review failed the change")...)
		j.final = !r.Retryable
		if r.RetryPhase != "" {
			j.retryPhase = r.RetryPhase
		}
		return s.reject(ctx, in, bd, j)
	}
	return s.pass(ctx, in, bd, j)
}

// judgement is the critic's view of one attempt.
type judgement struct {
	checks    []events.CheckResult
	diff      string
	alignment *events.Alignment
	review    *events.Review
	usage     []events.ModelUsage
	// gateWarnings are the change gate's warnings (approval paths).
	gateWarnings []string
	// policyHash is the hash of the policy the run is judged under.
	policyHash string
	// reasons are why the attempt fails (empty: it passes).
	reasons []string
	// retryPhase is where a retry goes: architect or builder.
	retryPhase string
	// final ends the run even with retries left (a non-retryable review).
	final bool
}

func (j judgement) reason() string { return strings.Join(j.reasons, "; ") }

func prefixed(prefix string, list []string, empty string) []string {
	if len(list) == 0 {
		return []string{prefix + empty}
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = prefix + s
	}
	return out
}

// verify applies the change, holds it to the policy gate and runs the
// checks. A non-empty reason means the attempt failed; an error means the
// critic itself could not work. The warnings are the gate's on the change;
// diff is the change as loaded.
func (s *Service) verify(ctx context.Context, in events.Envelope, bd events.BuiltData, gate app.Gate) (checks []events.CheckResult, reason string, gateWarnings []string, diff string, err error) {
	if reason := bd.EarlyStop(); reason != "" {
		return nil, reason, nil, "", nil
	}
	if bd.Change.Empty() {
		return nil, "the builder made no change", nil, "", nil
	}
	diff, err = s.d.Artifacts.LoadDiff(ctx, bd.Change)
	if err != nil {
		err = fmt.Errorf("could not load the change: %w", err)
		if artifacts.IsLost(err) {
			return nil, "", nil, "", worker.Permanent(err)
		}
		return nil, "", nil, "", err
	}
	wsDone := worker.Step(ctx, worker.StepWorkspace)
	ws, err := s.d.Workspaces.Prepare(ctx, in.RunID(), in.Attempt, events.ServiceCritic, bd.Run.Repo())
	wsDone()
	if err != nil {
		if errors.Is(err, workspace.ErrRepo) && !errors.Is(err, workspace.ErrClone) {
			return nil, "", nil, "", worker.Permanent(err)
		}
		return nil, "", nil, "", err
	}
	defer s.d.CloseWorkspace(ws)
	// Gate every change, again: what was applied here (as git read the
	// patch it applied) and what the diff itself says (not what the
	// builder says it changed) is held to the policy before any check
	// runs.
	applied, err := ws.ApplyChange(ctx, diff)
	if err != nil {
		if errors.Is(err, workspace.ErrApply) {
			return nil, fmt.Sprintf("the change does not apply to the repository: %v", err), nil, diff, nil
		}
		return nil, "", nil, "", fmt.Errorf("could not apply the change: %w", err)
	}
	recs := changegate.CheckDiff(gate.Policy, gate.Hash, s.d.Redactor, applied, diff)
	if v := changegate.Violations(recs); len(v) > 0 {
		msg := strings.Join(v, "; ")
		gate := events.CheckResult{Name: "policy gate", ExitCode: -1, Output: "blocked by policy: " + msg}
		return []events.CheckResult{gate}, "the change breaks the policy: " + msg, nil, diff, nil
	}
	checks, reason, err = s.runChecks(ctx, ws, bd, gate)
	return checks, reason, changegate.Warnings(recs), diff, err
}

// runChecks runs the plan's verification commands, each through the gate.
func (s *Service) runChecks(ctx context.Context, ws *workspace.Workspace, bd events.BuiltData, gate app.Gate) ([]events.CheckResult, string, error) {
	cfg := s.d.Config.Critic
	defer worker.Step(ctx, worker.StepChecks)()
	var checks []events.CheckResult
	var failed []string
	run := s.d.CommandRunner(gate)
	for _, v := range slices.Concat(bd.Plan.Verify, s.extraChecks(ws.Dir, bd, gate.Policy)) {
		c := events.CheckResult{Name: s.d.Redactor.String(v.Name), Command: s.recordArgv(v.Command)}
		d := gate.Policy.Evaluate(policy.ToolCall{Tool: "run_command", Command: v.Command})
		if d.Blocked {
			c.ExitCode = -1
			c.Output = s.d.Redactor.String("blocked by policy: " + strings.Join(d.Reasons, "; "))
			checks = append(checks, c)
			failed = append(failed, s.d.Redactor.String(fmt.Sprintf("check %q blocked by policy", short(v.Name, 80))))
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
		actx, end := activity.Begin(ctx, activity.Event{Kind: activity.Check, Name: v.Name, Detail: strings.Join(v.Command, " ")})
		res, err := run(actx, ws, v.Command, timeout, cfg.OutputBytes)
		end(checkErr(res.ExitCode, err))
		c.DurationMS = res.Duration.Milliseconds()
		switch {
		case errors.Is(err, sandbox.ErrUnavailable):
			// Refused on every attempt alike: the run ends here, saying why.
			return nil, "", worker.Permanent(fmt.Errorf("check %q not run: %w", v.Name, err))
		case err != nil:
			c.ExitCode, c.Output = -1, err.Error()
		case ctx.Err() != nil:
			return nil, "", fmt.Errorf("verification interrupted: %w", ctx.Err())
		default:
			c.ExitCode, c.Output, c.OK = res.ExitCode, s.d.Redactor.String(res.Output), res.ExitCode == 0
		}
		if !c.OK {
			failed = append(failed, s.d.Redactor.String(fmt.Sprintf("check %q (%s) exited %d", short(v.Name, 80), short(strings.Join(v.Command, " "), 200), c.ExitCode)))
		}
		checks = append(checks, c)
	}
	return checks, strings.Join(failed, "; "), nil
}

func (s *Service) pass(ctx context.Context, in events.Envelope, bd events.BuiltData, j judgement) ([]events.Envelope, error) {
	run := bd.Run
	run.Usage = events.MergeUsage(run.Usage, j.usage...)
	run.Spend = run.Spend.With(events.ServiceCritic, budget.OfUsage(j.usage, s.d.Pricing(events.ServiceCritic)))
	checks := j.checks
	warnings, approvals, approved := gateWarnings(bd.Tools)
	if !s.d.Sandbox.Isolated() {
		warnings = append(warnings, app.NoSandboxWarning)
	}
	warnings = append(warnings, changeWarnings(j.gateWarnings, approved)...)
	if j.review != nil && j.review.Status == events.ReviewConcerns {
		warnings = append(warnings, prefixed("review concern: ", j.review.Reasons, "the review passed the change with concerns")...)
	}
	integrity := events.IntegrityGreen
	if len(warnings) > 0 {
		integrity = events.IntegrityAmber
	}
	// Help-seeking is reported, but does not lower integrity.
	warnings = append(warnings, bd.CognitionWarnings()...)
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
	// The learning record is written after the state, not alongside it:
	// both keys share the bucket's revisions, and the run's pm_rev must
	// not depend on which write the server took first.
	if err := s.learnFromPass(ctx, in, bd, j.diff); err != nil {
		return nil, err
	}
	if run.Codex, err = s.codexRun(in, bd, run, j.policyHash, checks, integrity); err != nil {
		return nil, worker.Permanent(err)
	}
	plan, change := bd.Plan, bd.Change
	reason := fmt.Sprintf("%d of %d checks passed on attempt %d", len(checks), len(checks), in.Attempt)
	if j.review != nil && j.review.Status != events.ReviewSkipped {
		reason += "; review: " + j.review.Status
	}
	out, err := in.Follow(events.KindPassed, in.Attempt, events.SourceFor(events.ServiceCritic), s.d.Now(), events.VerdictData{
		Run: run, Status: events.StatusPassed, Phase: events.ServiceCritic, Reason: reason,
		Attempts: in.Attempt, Integrity: integrity, Checks: checks, Change: &change, Plan: &plan, Warnings: warnings,
		Alignment: j.alignment, Review: j.review, Usage: j.usage, UsageTotal: events.UsageTotalOf(run), Approvals: approvals,
	})
	if err != nil {
		return nil, worker.Permanent(err)
	}
	return []events.Envelope{out}, nil
}

func (s *Service) reject(ctx context.Context, in events.Envelope, bd events.BuiltData, j judgement) ([]events.Envelope, error) {
	run := bd.Run
	run.Usage = events.MergeUsage(run.Usage, j.usage...)
	run.Spend = run.Spend.With(events.ServiceCritic, budget.OfUsage(j.usage, s.d.Pricing(events.ServiceCritic)))
	checks, reason := j.checks, j.reason()
	run.Failures = append(append([]string(nil), run.Failures...), fmt.Sprintf("attempt %d: %s", in.Attempt, reason))
	final := j.final || in.Attempt-1 >= run.MaxRetries
	goal := pmstate.RunGoalID(in.RunID())
	lesson := s.lesson(run, in.Attempt)
	// With Docdex the lesson lives in its repository memory instead.
	inDocdex := s.saveLesson(ctx, in, run, lesson)
	res, err := s.d.PM.Update(ctx, run.Project, func(cur cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		var goals []cognition.GoalTreePatchOp
		if _, ok := cur.GoalTree.UserPartition.Find(goal); ok && final {
			goals = append(goals, cognition.PruneOp(goal)) // the run is over: its goal too
		}
		if lesson == "" || inDocdex {
			return goals, nil, nil
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
	if err := s.learnFromFailure(ctx, in, bd, reason); err != nil {
		return nil, err
	}
	reasons := make([]string, len(j.reasons))
	for i, r := range j.reasons {
		reasons[i] = s.d.Redactor.String(r)
	}
	if !final {
		if run.Codex, err = s.codexRun(in, bd, run, j.policyHash, checks, ""); err != nil {
			return nil, worker.Permanent(err)
		}
		out, err := in.Follow(events.KindRetry, in.Attempt+1, events.SourceFor(events.ServiceCritic), s.d.Now(), events.RetryData{
			Run: run, BundleRef: bd.BundleRef, Reason: reason, Checks: checks, Previous: bd.Plan,
			RetryPhase: j.retryPhase, Reasons: reasons, Alignment: j.alignment, Review: j.review, Usage: j.usage,
		})
		if err != nil {
			return nil, worker.Permanent(err)
		}
		return []events.Envelope{out}, nil
	}
	if run.Codex, err = s.codexRun(in, bd, run, j.policyHash, checks, events.IntegrityRed); err != nil {
		return nil, worker.Permanent(err)
	}
	plan, change := bd.Plan, bd.Change
	why := fmt.Sprintf("verification failed after %d attempts (retry limit %d): %s", in.Attempt, run.MaxRetries, reason)
	if j.final && in.Attempt-1 < run.MaxRetries {
		why = fmt.Sprintf("the review failed attempt %d and says another attempt cannot fix it: %s", in.Attempt, reason)
	}
	out, err := in.Follow(events.KindFailed, in.Attempt, events.SourceFor(events.ServiceCritic), s.d.Now(), events.VerdictData{
		Run: run, Status: events.StatusFailed, Phase: events.ServiceCritic, Reason: why,
		Attempts: in.Attempt, Integrity: events.IntegrityRed, Checks: checks, Change: &change, Plan: &plan,
		Alignment: j.alignment, Review: j.review, Usage: j.usage, UsageTotal: events.UsageTotalOf(run),
		Warnings: append(s.sandboxWarnings(), bd.CognitionWarnings()...),
	})
	if err != nil {
		return nil, worker.Permanent(err)
	}
	return []events.Envelope{out}, nil
}

func (s *Service) codexRun(in events.Envelope, bd events.BuiltData, run events.Run, policyHash string, checks []events.CheckResult, integrity string) (string, error) {
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
		ChecksPassed: passed, ChecksTotal: len(checks), Integrity: integrity, PolicyHash: policyHash})
}

// sandboxWarnings is what a verdict says about the sandbox: nothing when
// commands ran isolated.
func (s *Service) sandboxWarnings() []string {
	if s.d.Sandbox.Isolated() {
		return nil
	}
	return []string{app.NoSandboxWarning}
}

// recordArgv is the audit copy of a check's argv: each argument redacted,
// and a command over the gate's size limits (which the gate refuses) cut
// to its first arguments, each clipped, with a marker.
func (s *Service) recordArgv(argv []string) []string {
	const keep, clipAt = 16, 256
	out := make([]string, 0, min(len(argv), keep)+1)
	tooLong := policy.CheckArgvSize(argv) != nil
	for i, a := range argv {
		if tooLong && i == keep {
			out = append(out, fmt.Sprintf("[… %d more arguments]", len(argv)-keep))
			break
		}
		if tooLong && len(a) > clipAt {
			a = a[:clipAt] + fmt.Sprintf("…[%d more bytes]", len(a)-clipAt)
		}
		out = append(out, s.d.Redactor.String(a))
	}
	return out
}

func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
