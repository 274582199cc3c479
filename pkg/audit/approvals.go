package audit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/rao"
)

// Approval is a parked tool call in the state document: what was asked
// (by the builder's approval_requested) and, once decided, who decided
// what, when, with which edit (the approval_decided).
type Approval struct {
	Call     string          `json:"call"`
	Park     string          `json:"park"`
	Attempt  int             `json:"attempt"`
	Step     int             `json:"step"`
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"args,omitempty"`
	Targets  []string        `json:"targets,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
	// Requested and Deadline are RFC 3339 times.
	Requested string    `json:"requested"`
	Deadline  string    `json:"deadline"`
	Decision  *Decision `json:"decision,omitempty"`
	// Reason is "budget_exhausted" for a budget park.
	Reason string `json:"reason,omitempty"`
}

// Decision is the decision on a parked call.
type Decision struct {
	Decision   string          `json:"decision"`
	By         string          `json:"by"`
	At         string          `json:"at"`
	Note       string          `json:"note,omitempty"`
	EditedArgs json.RawMessage `json:"edited_args,omitempty"`
	Extend     *events.Budget  `json:"extend,omitempty"`
	// Event is the id of the approval_decided event.
	Event string `json:"event"`
}

// Pending returns the parked calls still waiting for a decision (none
// once the run ended).
func (s *State) Pending() []Approval {
	if s.Terminal() {
		return nil
	}
	var out []Approval
	for _, a := range s.Approvals {
		if a.Decision == nil {
			out = append(out, a)
		}
	}
	return out
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// foldApprovalRequested records a park: one audit step per parked call.
func foldApprovalRequested(e events.Envelope) ([]Step, error) {
	var d events.ApprovalRequestedData
	if err := events.DecodeData(e, &d); err != nil {
		return nil, err
	}
	var steps []Step
	for i, c := range d.Calls {
		c := c
		first := i == 0
		a := Approval{Call: c.ID, Park: d.Park, Attempt: e.Attempt, Step: c.Step, Tool: c.Tool, Args: c.Args, Targets: c.Targets,
			Warnings: c.Warnings, Requested: ts(e.Time), Deadline: ts(d.Deadline), Reason: d.Reason}
		steps = append(steps, Step{
			Cause: e.ID + "#" + c.ID, Kind: rao.KindAudit, PMRev: d.Run.PMRev,
			Summary: fmt.Sprintf("approval requested (attempt %d, step %d): %s %s, call %s, until %s", e.Attempt, c.Step, c.Tool,
				oneLine(strings.Join(c.Targets, " "), 80), c.ID, a.Deadline),
			Mutate: func(s *State) {
				s.Phase = events.ServiceBuilder
				if first {
					// The model calls of the handling that parked.
					addModelCalls(s, e.Attempt, events.ServiceBuilder, d.Exchanges)
				}
				if len(d.Run.Spend) > 0 {
					s.Spend = d.Run.Spend
				}
				for _, x := range s.Approvals {
					if x.Call == a.Call {
						return
					}
				}
				s.Approvals = append(s.Approvals, a)
			},
		})
	}
	return steps, nil
}

// foldApprovalDecided records a decision as an override step. A second
// decision on the same call is kept as a note: the first one stands (the
// builder acts on the first in stream order too, the order in which the
// recorder folds). So is a decision whose attempt is not the park's,
// which the builder ignores. Decisions on one call share its id, so the
// step's cause also names the decision's data: a second decision is
// recorded, a redelivery of one is not. A decision on a call the run
// never parked is recorded as refused (the step's check): it changes
// nothing, and the timeline says so.
//
// A decision whose data is invalid (it does not decode, a reject without
// a note, no decider, data naming another call than its id) is recorded
// as refused (Refuse): agents publish decisions on any run, and such a
// decision decides nothing, but the history keeps it.
func foldApprovalDecided(e events.Envelope) ([]Step, error) {
	d, err := events.DecodeDecision(e)
	if err != nil {
		return []Step{Refuse(e, fmt.Errorf("malformed decision, it decides nothing: %w", err))}, nil
	}
	var what string
	switch {
	case d.Extend != nil && events.IsBudgetCall(d.Call):
		// (An extension on a tool call's approval raises nothing: the
		// builder runs the call as approved.)
		what = fmt.Sprintf("budget extended (+%d tokens, +%g cost)", d.Extend.Tokens, d.Extend.Cost)
	case len(d.EditedArgs) > 0:
		what = "approved with edited arguments"
	case d.Decision == events.DecisionApprove:
		what = "approved"
	default:
		what = "rejected"
	}
	dec := Decision{Decision: d.Decision, By: d.By, At: ts(d.At), Note: d.Note, EditedArgs: d.EditedArgs, Extend: d.Extend, Event: e.ID}
	summary := fmt.Sprintf("call %s %s by %s", d.Call, what, oneLine(d.By, 60))
	var parked int
	if _, err := fmt.Sscanf(d.Call, "a%d-", &parked); err == nil && parked != e.Attempt {
		// Call ids start with their park's attempt (a<attempt>-s<step>-…).
		summary += fmt.Sprintf(" with attempt %d, not the call's %d: it decides nothing", e.Attempt, parked)
	}
	if d.Note != "" {
		summary += ": " + oneLine(d.Note, 100)
	}
	check := belongs(e, nil)
	return []Step{{
		Cause: e.ID + "#" + dataTag(e), Kind: rao.KindOverride,
		Summary: summary,
		// A decision on a call the run never parked (or not yet: one
		// published before its park) changes nothing: the builder ignores
		// it, and the history records it as refused, saying so, rather
		// than as an override.
		Check: func(s *State) error {
			if err := check(s); err != nil {
				return err
			}
			if !slices.ContainsFunc(s.Approvals, func(a Approval) bool { return a.Call == d.Call }) {
				return fmt.Errorf("decision on call %s (%s by %s) refers to no call the run parked: it changed nothing", d.Call, what, oneLine(d.By, 60))
			}
			return nil
		},
		Refuse: func(reason error) Step { return Refuse(e, reason) },
		Mutate: func(s *State) {
			for i := range s.Approvals {
				a := &s.Approvals[i]
				if a.Call != d.Call {
					continue
				}
				if a.Attempt != e.Attempt {
					// The builder matches a decision to its park by the
					// park's attempt too and ignores this one: so does
					// the history, and the call stays pending.
					s.Notes = append(s.Notes, Note{By: d.By, Text: fmt.Sprintf("decision on call %s (%s) carries attempt %d, but the call was parked in attempt %d: it decides nothing",
						d.Call, what, e.Attempt, a.Attempt), TS: dec.At})
					return
				}
				if a.Decision != nil {
					s.Notes = append(s.Notes, Note{By: d.By, Text: "late decision on call " + d.Call + " (" + what + "): the first one stands", TS: dec.At})
					return
				}
				a.Decision = &dec
				return
			}
		},
	}}, nil
}

// foldApprovalDeadline records that a park's deadline came. It changes no
// state: a park nobody decided in time ends with the builder's failed
// event (approval_timeout); one decided first ignores its deadline.
func foldApprovalDeadline(e events.Envelope) ([]Step, error) {
	var d events.ApprovalDeadlineData
	if err := events.DecodeData(e, &d); err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", events.ErrInvalidPayload, err)
	}
	return []Step{{
		Cause: e.ID, Kind: rao.KindAudit, PMRev: d.Run.PMRev,
		Summary: fmt.Sprintf("approval deadline of park %s (attempt %d) reached at %s", d.Park, e.Attempt, ts(d.Deadline)),
		Mutate:  func(*State) {},
	}}, nil
}
