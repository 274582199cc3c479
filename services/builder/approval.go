package builder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/approval"
	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/codali-dev/codali/pkg/workspace"
)

// parkedCall is a call the run parks on.
type parkedCall = events.ApprovalCall

// callID names the n-th (0-based) call of a step's answer in an attempt.
func callID(attempt, step, n int) string { return fmt.Sprintf("a%d-s%d-c%d", attempt, step, n+1) }

// resumeState is what a park stores in the object store: the plan event
// the attempt started from and where the tool loop stands.
type resumeState struct {
	Plan events.Envelope `json:"plan"`
	Loop loopState       `json:"loop"`
}

// preview decides a call as execute would, without running it: the gate's
// view and decision, or ok false when the call is malformed (execute then
// reports the error to the model).
func (x *executor) preview(tool string, args json.RawMessage) (policy.ToolCall, policy.Decision, bool) {
	pc, err := x.prepare(tool, args)
	if err != nil {
		return pc.call, policy.Decision{}, false
	}
	// The emotion heuristics join the preview as they join the gate, so
	// an anxious destructive call really parks for approval.
	d := x.heuristicGate(pc.call, x.policy.Evaluate(pc.call))
	if !d.Blocked && pc.measure != nil {
		if pc.measure(&pc.call) != nil {
			return pc.call, policy.Decision{}, false
		}
		d = x.heuristicGate(pc.call, x.policy.Evaluate(pc.call))
	}
	return pc.call, d, true
}

// toPark returns the calls to park on when call `next` of the answer needs
// approval: it and every later call of the answer that needs approval
// too (judged on the workspace as it is), each with its own id. It
// returns nil when call `next` may run.
func (x *executor) toPark(attempt, step, next int, calls []toolCall) []parkedCall {
	var out []parkedCall
	for i := next; i < len(calls); i++ {
		c := calls[i]
		call, d, ok := x.preview(c.Tool, c.Args)
		if !ok || !d.RequiresApproval() {
			if i == next {
				return nil
			}
			continue
		}
		targets := call.Paths
		if len(call.Command) > 0 {
			targets = []string{strings.Join(call.Command, " ")}
		}
		out = append(out, parkedCall{ID: callID(attempt, step, i), Step: step, Tool: c.Tool, Args: x.recordArgs(c.Args),
			Targets: x.redactAll(append([]string(nil), targets...)), Warnings: x.redactAll(d.Warnings)})
	}
	return out
}

// executeDecided runs a parked call under its decision: approved as asked,
// approved with edited arguments (which pass the gate again), or rejected
// (not run; the model is told who rejected it and why).
func (x *executor) executeDecided(ctx context.Context, step int, c toolCall, id string, d events.ApprovalDecidedData) (events.ToolExecution, string) {
	note := &events.ToolApproval{Call: id, Decision: d.Decision, By: x.redactor.String(d.By), At: d.At, Note: x.redactor.String(d.Note)}
	if d.Decision == events.DecisionReject {
		call, dec, _ := x.preview(c.Tool, c.Args)
		rec := events.ToolExecution{Step: step, Tool: c.Tool, Args: x.recordArgs(c.Args), Call: x.recordCall(call), Approval: note}
		rec.Gate = events.GateDecision{Stage: events.GateStagePolicy, Blocked: dec.Blocked, Reasons: x.redactAll(dec.Reasons),
			Warnings: x.redactAll(dec.Warnings), PolicyHash: x.policyHash, Evaluator: policy.EvaluatorVersion}
		msg := fmt.Sprintf("rejected by %s: %s", note.By, note.Note)
		rec.Result = events.ToolResult{OK: false, Error: msg}
		return rec, "error: the call was " + msg + ". Do not repeat it; find another way or finish."
	}
	args := c.Args
	if len(d.EditedArgs) > 0 {
		args, note.Edited = d.EditedArgs, true
	}
	rec, out := x.execute(ctx, step, c.Tool, args)
	rec.Approval = note
	return rec, out
}

// park stores where the loop stands and the diff so far, and returns the
// approval_requested event that parks the run. The runtime publishes it
// and acknowledges the input: nothing holds the run while it waits.
func (s *Service) park(ctx context.Context, in events.Envelope, pd events.PlanData, st *loopState, ws *workspace.Workspace, calls []parkedCall) ([]events.Envelope, error) {
	change, err := s.change(ctx, ws, pd.Run.Request.Options.WriteContext)
	if err != nil {
		err = fmt.Errorf("could not take the change to park: %w", err)
		if errors.Is(err, workspace.ErrTooLarge) || errors.Is(err, workspace.ErrGit) {
			return nil, worker.Permanent(err)
		}
		return nil, err
	}
	if err := s.d.Artifacts.OffloadDiff(ctx, in.RunID(), in.Attempt, &change, s.d.Config.Events.ArtifactThresholdBytes); err != nil {
		return nil, err
	}
	raw, err := json.Marshal(resumeState{Plan: in, Loop: *st})
	if err != nil {
		return nil, worker.Permanent(err)
	}
	ref, err := s.d.Artifacts.Put(ctx, fmt.Sprintf("%s/%d/park", in.RunID(), in.Attempt), raw)
	if err != nil {
		return nil, err
	}
	now := s.d.Now()
	data := events.ApprovalRequestedData{Run: pd.Run, BundleRef: pd.BundleRef, Park: calls[0].ID, Calls: calls, Change: change, State: ref,
		Deadline: now.Add(time.Duration(s.d.Config.Limits.ApprovalTimeoutMS) * time.Millisecond).UTC()}
	if calls[0].Tool == ToolBudget {
		data.Reason = ReasonBudgetExhausted
	}
	out, err := events.NewKeyed(in.RunID(), events.KindApprovalRequested, in.Attempt, data.Park, events.SourceFor(events.ServiceBuilder), now, data)
	if err != nil {
		return nil, worker.Permanent(err)
	}
	out.TraceParent = in.TraceParent
	return []events.Envelope{out}, nil
}

func (s *Service) approvals(ctx context.Context) (*approval.Reader, error) {
	return approval.NewReader(ctx, s.d.JS, s.d.Config.Events.MaxEventBytes)
}

// resume handles a decision: once every call of the run's current park is
// decided, the decision that completed the park resumes the run from the
// stored state, in a workspace rebuilt from the park's diff. Decisions of
// an older park, and all but the completing one, change nothing.
func (s *Service) resume(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
	var dd events.ApprovalDecidedData
	if err := events.DecodeData(in, &dd); err != nil {
		return nil, worker.Permanent(err)
	}
	r, err := s.approvals(ctx)
	if err != nil {
		return nil, err
	}
	p, err := r.LastPark(ctx, in.RunID())
	if errors.Is(err, approval.ErrNoPark) {
		s.d.Log.Warn("decision for a run that never parked; ignored", "run_id", in.RunID(), "call", dd.Call)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if _, ok := p.Data.Call(dd.Call); !ok || p.Event.Attempt != in.Attempt {
		s.d.Log.Info("decision for a call not parked now; ignored", "run_id", in.RunID(), "call", dd.Call)
		return nil, nil
	}
	decided, err := r.Decisions(ctx, p)
	if err != nil {
		return nil, err
	}
	seq := decided[dd.Call].Seq
	if d, ok := worker.DeliveryFrom(ctx); ok {
		seq = d.StreamSeq
	}
	if !approval.Completes(p, decided, seq) {
		// Another decision resumes the run. The work stream keeps a message
		// only while a consumer has not acknowledged it, so this decision is
		// handed back until the deadline: it stays readable for the
		// decision that completes the park.
		if wait := p.Data.Deadline.Sub(s.d.Now()); wait > 0 {
			return nil, worker.Defer(wait)
		}
		return nil, nil
	}
	raw, err := s.d.Artifacts.Get(ctx, p.Data.State)
	if err != nil {
		if artifacts.IsLost(err) {
			return nil, worker.Permanent(fmt.Errorf("the parked state is lost: %w", err))
		}
		return nil, err
	}
	var rs resumeState
	if err := json.Unmarshal(raw, &rs); err != nil {
		return nil, worker.Permanent(fmt.Errorf("the parked state is unreadable: %w", err))
	}
	var pd events.PlanData
	if err := events.DecodeData(rs.Plan, &pd); err != nil {
		return nil, worker.Permanent(err)
	}
	diff, err := s.d.Artifacts.LoadDiff(ctx, p.Data.Change)
	if err != nil {
		if artifacts.IsLost(err) {
			return nil, worker.Permanent(fmt.Errorf("the parked diff is lost: %w", err))
		}
		return nil, err
	}
	return s.build(ctx, rs.Plan, pd, &rs.Loop, diff, decided)
}

// deadline handles the builder's own approval_requested: before the
// deadline it is handed back to JetStream until then (worker.Defer: no
// goroutine waits); at the deadline a park that is still current and
// undecided fails the run with approval_timeout.
func (s *Service) deadline(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
	var ad events.ApprovalRequestedData
	if err := events.DecodeData(in, &ad); err != nil {
		return nil, worker.Permanent(err)
	}
	if wait := ad.Deadline.Sub(s.d.Now()); wait > 0 {
		return nil, worker.Defer(wait)
	}
	r, err := s.approvals(ctx)
	if err != nil {
		return nil, err
	}
	p, err := r.LastPark(ctx, in.RunID())
	if err != nil {
		return nil, err
	}
	if p.Event.ID != in.ID {
		return nil, nil // the run was resumed and parked again since
	}
	decided, err := r.Decisions(ctx, p)
	if err != nil {
		return nil, err
	}
	if approval.Complete(p, decided) {
		return nil, nil // resumed
	}
	var open []string
	for _, c := range p.Data.Calls {
		if _, ok := decided[c.ID]; !ok {
			open = append(open, c.ID+" ("+c.Tool+")")
		}
	}
	timeout := time.Duration(s.d.Config.Limits.ApprovalTimeoutMS) * time.Millisecond
	v := events.VerdictData{Run: ad.Run, Status: events.StatusFailed, Phase: events.ServiceBuilder, Code: events.CodeApprovalTimeout,
		Reason:   fmt.Sprintf("%s: no decision on %s by %s (limits.approvalTimeoutMs %d)", events.CodeApprovalTimeout, strings.Join(open, ", "), ad.Deadline.Format(time.RFC3339), timeout.Milliseconds()),
		Attempts: in.Attempt, Integrity: events.IntegrityRed}
	out, err := events.FailedWith(in, in.RunID(), in.Attempt, events.SourceFor(events.ServiceBuilder), s.d.Now, v)
	if err != nil {
		return nil, worker.Permanent(err)
	}
	return []events.Envelope{out}, nil
}
