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
	"github.com/codali-dev/codali/pkg/exchange"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/codali-dev/codali/pkg/workspace"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
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

// Bounds of a decision's name and note in what the builder records.
const (
	maxDeciderBytes      = 256
	maxDecisionNoteBytes = 4096
)

// executeDecided runs a parked call under its decision: approved as asked,
// approved with edited arguments (which pass the gate again), or rejected
// (not run; the model is told who rejected it and why).
func (x *executor) executeDecided(ctx context.Context, step int, c toolCall, id string, d events.ApprovalDecidedData) (events.ToolExecution, string) {
	// Any agent may decide, with a name and a note as long as an event
	// allows: both are bounded here, where they are copied into the tool
	// record, the built event and the model's conversation.
	note := &events.ToolApproval{Call: id, Decision: d.Decision, By: clip(x.redactor.String(d.By), maxDeciderBytes), At: d.At,
		Note: clip(x.redactor.String(d.Note), maxDecisionNoteBytes)}
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
	// Deadlines are whole seconds (the server schedules to the second),
	// rounded up: never earlier than limits.approvalTimeoutMs.
	deadline := now.Add(time.Duration(s.d.Config.Limits.ApprovalTimeoutMS) * time.Millisecond).UTC()
	if t := deadline.Truncate(time.Second); t.Before(deadline) {
		deadline = t.Add(time.Second)
	}
	data := events.ApprovalRequestedData{Run: pd.Run, BundleRef: pd.BundleRef, Park: calls[0].ID, Calls: calls, Change: change, State: ref,
		Deadline: deadline}
	if calls[0].Tool == ToolBudget {
		data.Reason = ReasonBudgetExhausted
	}
	out, err := events.NewKeyed(in.RunID(), events.KindApprovalRequested, in.Attempt, data.Park, events.SourceFor(events.ServiceBuilder), now, data)
	if err != nil {
		return nil, worker.Permanent(err)
	}
	out.TraceParent = in.TraceParent
	if out, err = s.withExchanges(ctx, out); err != nil {
		return nil, err
	}
	if err := s.recordPark(ctx, out, data); err != nil {
		return nil, err
	}
	return []events.Envelope{out}, nil
}

// withExchanges returns park referencing the model exchanges of this
// handling (exchange.Collected; none without a collector), once their
// records are stored. The park is stored with them, so a park published
// again from the store (a redelivered decision, see resume) references
// the exchanges the lost one did, and the history keeps them. A park the
// references would make too large is stored without them, as the
// runtime's wrapper leaves them out of any event.
func (s *Service) withExchanges(ctx context.Context, park events.Envelope) (events.Envelope, error) {
	refs, err := exchange.Collected(ctx)
	if err != nil {
		return park, err
	}
	with, err := events.WithExchanges(park, refs)
	if err != nil || !with.Fits(s.d.Config.Events.MaxEventBytes) {
		s.d.Log.Warn("model exchanges not referenced from the park", "run_id", park.RunID(), "event", park.ID, "exchanges", len(refs), "err", err)
		return park, nil
	}
	return with, nil
}

// recordPark schedules park's deadline — a JetStream message schedule
// that fires once, at the deadline, as the run's approval_deadline event
// — and then makes park the run's current park in the park store. Both
// are stored before the park is published, so a decision always finds
// its park, and nothing in any process waits for the deadline. The park
// is stored last: a decision that finds it may publish it (see resume),
// and must not publish a park whose deadline is not scheduled (a
// deadline without its park changes nothing when it fires).
func (s *Service) recordPark(ctx context.Context, park events.Envelope, data events.ApprovalRequestedData) error {
	store, err := s.parks(ctx)
	if err != nil {
		return err
	}
	dl, err := events.NewKeyed(park.RunID(), events.KindApprovalDeadline, park.Attempt, data.Park, events.SourceFor(events.ServiceBuilder), data.Deadline,
		events.ApprovalDeadlineData{Run: data.Run, Park: data.Park, Request: park.ID, Deadline: data.Deadline})
	if err != nil {
		return worker.Permanent(err)
	}
	dl.TraceParent = park.TraceParent
	raw, err := dl.Encode(s.d.Config.Events.MaxEventBytes)
	if err != nil {
		return worker.Permanent(err)
	}
	m := nats.NewMsg(events.TimerScheduleSubject(park.RunID(), data.Park))
	m.Data = raw
	if _, err := s.d.JS.PublishMsg(ctx, m, jetstream.WithScheduleAt(data.Deadline), jetstream.WithScheduleTarget(events.TimerFireSubject(park.RunID())),
		jetstream.WithMsgID(dl.ID)); err != nil {
		return fmt.Errorf("could not schedule the deadline of %s: %w", park.ID, err)
	}
	// The runtime reports where it stored the park's approval_requested;
	// from then on decisions stored after it count (see
	// approval.ParkAwaiting). Called directly (no runtime), the park
	// counts decisions from the parking message on.
	if worker.OnPublished(ctx, park.ID, s.recordRequested(store, park)) {
		return store.ParkAwaiting(ctx, park, streamSeq(ctx))
	}
	return store.Park(ctx, park, streamSeq(ctx))
}

// resume handles a decision: the park store records it on the run's
// current park (compare-and-set), and the decision that decides the
// park's last open call resumes the run from the stored state, in a
// workspace rebuilt from the park's diff. Any other decision is
// acknowledged at once: nothing holds a parked run.
func (s *Service) resume(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
	store, err := s.parks(ctx)
	if err != nil {
		return nil, err
	}
	res, err := store.Decide(ctx, in, streamSeq(ctx))
	var unsent *approval.UnsentError
	if errors.As(err, &unsent) {
		// The builder that parked has not recorded where the park's
		// approval_requested is stored: it stopped (or failed to record
		// it) after the runtime published it, or before. Waiting for it
		// would hold a decision the history may already have taken
		// until it is dead-lettered, which ends the run: publish the
		// park again and record where it is, then decide.
		if err := s.publishPark(ctx, store, unsent.Park); err != nil {
			return nil, err
		}
		res, err = store.Decide(ctx, in, streamSeq(ctx))
	}
	if err != nil {
		return nil, err
	}
	if res.Republish {
		// The decision resumed the run into this park before: its
		// approval_requested may have been lost with that handling, or
		// stored without its sequence being recorded.
		p := res.Park.Event
		worker.OnPublished(ctx, p.ID, s.recordRequested(store, p))
		return []events.Envelope{p}, nil
	}
	if res.Park.Event.ID == "" {
		s.d.Log.Info("decision for a call not parked now; ignored", "run_id", in.RunID(), "event", in.ID)
		return nil, nil
	}
	if !res.Settled {
		return nil, nil // recorded; another decision (or the deadline) settles the park
	}
	p, decided := res.Park, res.Decided
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
	pd, err := decodePlan(rs.Plan)
	if err != nil {
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

// recordRequested returns the publish hook that records where the
// runtime stored park's approval_requested. A failed record is logged, not
// returned: failing the handling would hand its input out again, and a
// plan handled again runs its tool loop (its model calls, which may not
// park again) once more under an approval_requested the history already
// shows. The first decision on the park records it instead (see resume).
func (s *Service) recordRequested(store *approval.Store, park events.Envelope) func(context.Context, uint64) error {
	return func(ctx context.Context, seq uint64) error {
		if err := store.SetRequested(ctx, park, seq); err != nil {
			s.d.Log.Warn("could not record where the park's approval_requested is stored; its first decision will", "run_id", park.RunID(),
				"event", park.ID, "seq", seq, "err", err)
		}
		return nil
	}
}

// publishPark publishes park (an approval_requested event, as stored in
// the park store) as the runtime would, and records the stream sequence
// the stream acknowledges: for a copy stored earlier within the stream's
// duplicate window (the runtime's publish whose sequence was not
// recorded), that copy's; otherwise this one's, stored after the
// decision being handled, which then decides nothing, as in the history.
func (s *Service) publishPark(ctx context.Context, store *approval.Store, park events.Envelope) error {
	m, err := worker.EventMsg(park, s.d.Config.Events.MaxEventBytes, s.d.MsgIDs)
	if err != nil {
		return worker.Permanent(fmt.Errorf("could not publish the park again: %w", err))
	}
	ack, err := s.d.JS.PublishMsg(ctx, m)
	if err != nil {
		return fmt.Errorf("could not publish the park %s again: %w", park.ID, err)
	}
	return store.SetRequested(ctx, park, ack.Sequence)
}

// deadline handles a park's approval_deadline: when the park is still
// the run's current one and no decision settled it first, the run fails
// with approval_timeout. The park store settles each park once, so a
// decision racing the deadline either resumes the run or loses.
func (s *Service) deadline(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
	store, err := s.parks(ctx)
	if err != nil {
		return nil, err
	}
	res, err := store.Expire(ctx, in, streamSeq(ctx))
	if errors.Is(err, approval.ErrInvalid) {
		return nil, worker.Permanent(err)
	}
	if err != nil {
		return nil, err
	}
	if !res.Settled {
		return nil, nil // resumed, or parked again since
	}
	p, decided, ad := res.Park, res.Decided, res.Park.Data
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

// parks returns the park store, opened the first time it is needed and
// kept (a failed opening is tried again next time). A decision takes
// effect only when no earlier valid one on its call is stored in the
// work stream: the store reads them with the worker's event bound and run
// guard, so it counts the decisions the worker and the recorder admit.
func (s *Service) parks(ctx context.Context) (*approval.Store, error) {
	s.parksMu.Lock()
	defer s.parksMu.Unlock()
	if s.parkStore != nil {
		return s.parkStore, nil
	}
	// Parks age by the clock they are made by (see approval.SetRequested).
	opts := []approval.Option{approval.WithMaxEventBytes(s.d.Config.Events.MaxEventBytes), approval.WithClock(s.d.Now)}
	if s.d.Claims != nil {
		opts = append(opts, approval.WithAdmitter(s.d.Claims))
	}
	store, err := approval.Open(ctx, s.d.JS, opts...)
	if err != nil {
		return nil, err
	}
	s.parkStore = store
	return store, nil
}

// streamSeq is the stream sequence of the message being handled (0 when
// unknown): the park store tells a redelivery of the message that settled
// a park from another message with the same event id.
func streamSeq(ctx context.Context) uint64 {
	d, _ := worker.DeliveryFrom(ctx)
	return d.StreamSeq
}
