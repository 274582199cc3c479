// Package approval keeps a parked run's park and the decisions taken on it
// in the codali-parks bucket, one record per run. Parks, decisions and
// deadlines are events, and every builder handles them by reading and
// updating this record with compare-and-set, so whoever handles them — any
// builder, after any restart — sees the same state, holds none in memory,
// acknowledges its input at once, and exactly one of the park's completing
// decision and its deadline wins.
package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go/jetstream"
)

// Park is a run's current park: its approval_requested event.
type Park struct {
	Event events.Envelope
	Data  events.ApprovalRequestedData
}

// Decision is a call's decision.
type Decision struct {
	Data events.ApprovalDecidedData
}

// Outcomes of a park.
const (
	// OutcomeResumed: every call was decided; the completing decision
	// resumed the run.
	OutcomeResumed = "resumed"
	// OutcomeTimedOut: the deadline came first; the run failed.
	OutcomeTimedOut = "timed_out"
)

// record is what the bucket keeps per run.
type record struct {
	Park      events.Envelope                       `json:"park"`
	Decisions map[string]events.ApprovalDecidedData `json:"decisions"`
	// Outcome is empty while the park waits; By is the id of the event
	// that settled it and Seq the stream sequence of the message that
	// carried it: only that message, redelivered, settles the park again
	// (decision and deadline ids are predictable, so another message
	// with the same id — a second decision on the same call, a copy
	// published again — is not the one that settled it).
	Outcome string `json:"outcome,omitempty"`
	By      string `json:"by,omitempty"`
	Seq     uint64 `json:"seq,omitempty"`
	// From is the stream sequence of the message whose handling parked
	// the run (0 when unknown): a decision that resumed the run and led
	// to this park, redelivered, hands the park out again (its
	// approval_requested may never have been published).
	From uint64 `json:"from,omitempty"`
	// Requested is the stream sequence of the park's approval_requested
	// (0 until it is known), and Awaits says it will be: the builder
	// that parked reports it once the runtime has stored the event
	// (SetRequested). While it is unknown no decision counts (ErrUnsent),
	// and then only decisions stored after it do, as in the history,
	// which folds a run's events in stream order. A park stored by a
	// builder that reports no sequence (an older release) has neither,
	// and its decisions count from From on.
	Requested uint64 `json:"requested,omitempty"`
	Awaits    bool   `json:"awaits,omitempty"`
}

// Store reads and updates park records. It is safe for concurrent use.
type Store struct {
	kv jetstream.KeyValue
	// js reads the work stream: a decision takes effect only when no
	// earlier one on its call is stored there (see firstDecision).
	js      jetstream.JetStream
	decoder events.Decoder
	admit   Admitter
	// work is the work stream once bound (workStream).
	workMu sync.Mutex
	work   jetstream.Stream
	// now is the clock parks age by (nil: they never do; WithClock).
	now func() time.Time
}

// Open binds the codali-parks bucket (created by bus.Provision).
func Open(ctx context.Context, js jetstream.JetStream, opts ...Option) (*Store, error) {
	kv, err := js.KeyValue(ctx, events.BucketParks)
	if err != nil {
		return nil, fmt.Errorf("could not open bucket %s: %w", events.BucketParks, err)
	}
	// Every read of a record is the leader's: a builder handles a
	// decision (or a deadline) right after another parked the run, and
	// a replica that has not applied the park yet would show no park, or
	// the run's previous one, and the decision would be dropped without
	// a write for the compare-and-set to catch (see bus.LeaderGet).
	s := &Store{kv: bus.LeaderReads(js, kv), js: js}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// maxTries bounds the compare-and-set retries of one update.
const maxTries = 32

// Errors of the package; match them with errors.Is.
var (
	// ErrContended: an update lost its compare-and-set maxTries times.
	ErrContended = errors.New("park record contended")
	// ErrInvalid: a deadline event does not decode.
	ErrInvalid = errors.New("invalid approval event")
	// ErrUnsent: a decision came while its park's approval_requested is
	// not known to be stored yet. Decide wraps it in an *UnsentError
	// naming the park: its handler publishes the park again (a copy
	// stored within the stream's duplicate window is not stored twice,
	// and the acknowledgement names the first), records the sequence
	// with SetRequested, and decides again.
	ErrUnsent = errors.New("the park's approval_requested is not stored yet")
)

// UnsentError is the error of a decision on a park awaiting its
// approval_requested's sequence (see ParkAwaiting); it wraps ErrUnsent.
type UnsentError struct {
	// Park is the run's current park, as stored.
	Park events.Envelope
}

func (e *UnsentError) Error() string { return fmt.Sprintf("%v: park %s", ErrUnsent, e.Park.ID) }

// Unwrap returns ErrUnsent.
func (e *UnsentError) Unwrap() error { return ErrUnsent }

// update applies f to the run's record under compare-and-set; f returns
// whether to write. A missing record is passed as nil.
func (s *Store) update(ctx context.Context, runID string, f func(r *record) (bool, error)) error {
	for range maxTries {
		var cur *record
		var rev uint64
		e, err := s.kv.Get(ctx, runID)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			return fmt.Errorf("could not read the park of %s: %w", runID, err)
		default:
			cur, rev = &record{}, e.Revision()
			if err := json.Unmarshal(e.Value(), cur); err != nil {
				return fmt.Errorf("the park record of %s is unreadable: %w", runID, err)
			}
		}
		r := cur
		if r == nil {
			r = &record{}
		}
		write, err := f(r)
		if err != nil || !write {
			return err
		}
		raw, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if cur == nil {
			_, err = s.kv.Create(ctx, runID, raw)
		} else {
			_, err = s.kv.Update(ctx, runID, raw, rev)
		}
		if bus.IsConflict(err) {
			continue // someone else wrote first: read again
		}
		if err != nil {
			return fmt.Errorf("could not write the park of %s: %w", runID, err)
		}
		return nil
	}
	return fmt.Errorf("%w: %s", ErrContended, runID)
}

// Park records park (an approval_requested event) as the run's current
// park, made while handling the message at stream sequence from (0 when
// unknown). A redelivered park (the same event id) keeps the decisions
// taken since; a park that comes before the current one (see before)
// changes nothing; any other replaces the record. Decisions count from
// the message at from on; see ParkAwaiting for a parker that learns where
// the park's approval_requested is stored.
func (s *Store) Park(ctx context.Context, park events.Envelope, from uint64) error {
	return s.park(ctx, park, from, false)
}

// ParkAwaiting is Park for a parker that reports, with SetRequested, the
// stream sequence of the park's approval_requested once it is stored
// (from the stream's acknowledgement). Until then a decision on the park
// is not taken (ErrUnsent); afterwards only decisions stored after the
// approval_requested are, as the history takes them. A guessed call id
// published between the parking message and its approval_requested
// thus decides nothing in the run as in the history.
func (s *Store) ParkAwaiting(ctx context.Context, park events.Envelope, from uint64) error {
	return s.park(ctx, park, from, true)
}

// SetRequested records seq, the stream sequence the park's
// approval_requested is stored at, while park is the run's current,
// unsettled park awaiting it and no sequence is recorded yet (the first
// one stays: a copy published again after the stream's duplicate window
// is a later message).
//
// The sequence is the stream acknowledgement's, which names the copy
// stored first only within the duplicate window. Reported later than
// that after the park was made (less a margin for the clocks of
// builders and servers; see WithClock), it may be a later copy's while
// the history holds the first, and decisions stored between the two:
// the park then stops awaiting and counts its decisions from the
// parking message on, as a park stored with Park does.
func (s *Store) SetRequested(ctx context.Context, park events.Envelope, seq uint64) error {
	if seq == 0 {
		return nil
	}
	return s.update(ctx, park.RunID(), func(r *record) (bool, error) {
		if r.Park.ID != park.ID || !r.Awaits || r.Requested != 0 || r.Outcome != "" {
			return false, nil
		}
		if s.now != nil && s.now().Sub(r.Park.Time) >= bus.DuplicateWindow-clockMargin {
			r.Awaits = false
			return true, nil
		}
		r.Requested = seq
		return true, nil
	})
}

// clockMargin is how far the clock of the builder that made a park and
// the stream's may disagree (see SetRequested).
const clockMargin = time.Minute

func (s *Store) park(ctx context.Context, park events.Envelope, from uint64, awaits bool) error {
	return s.update(ctx, park.RunID(), func(r *record) (bool, error) {
		if r.Park.ID == park.ID {
			return false, nil
		}
		if r.Park.ID != "" && before(park, r.Park) {
			// A redelivered handling parked where the run was before
			// (its first park was decided and the run went on): the
			// run's later park stays current.
			return false, nil
		}
		*r = record{Park: park, Decisions: map[string]events.ApprovalDecidedData{}, From: from, Awaits: awaits}
		return true, nil
	})
}

// before reports whether park a comes before park b in their run: an
// earlier attempt, an earlier step of the tool loop, or, at the same
// step, a budget park (made before the step's model call) before a park
// of the step's tool calls. Parks whose keys do not say (a<attempt>-s<step>-…)
// are not ordered.
func before(a, b events.Envelope) bool {
	pa, oka := position(a)
	pb, okb := position(b)
	if !oka || !okb {
		return false
	}
	for i := range pa {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return false
}

// position is a park's attempt, step and rank (0 for a budget park, 1
// for tool calls), read from its key.
func position(park events.Envelope) ([3]int, bool) {
	var attempt, step int
	key := events.KeyOf(park)
	if _, err := fmt.Sscanf(key, "a%d-s%d-", &attempt, &step); err != nil || attempt != park.Attempt {
		return [3]int{}, false
	}
	rank := 1
	if events.IsBudgetCall(key) {
		rank = 0
	}
	return [3]int{attempt, step, rank}, true
}

// Result is what a decision or a deadline did to the run's park.
type Result struct {
	// Park is the run's current park; zero when the event belongs to none.
	Park Park
	// Decided are the park's decisions so far.
	Decided map[string]Decision
	// Settled: this event settled the park (a redelivery of the message
	// that did, the same stream sequence, reports it again): the run
	// resumes (Decide) or fails (Expire).
	Settled bool
	// Republish: the decision is a redelivery of the message that resumed
	// the run into Park, which still waits; Park's approval_requested is
	// to be published again (it may have been lost with the first
	// handling).
	Republish bool
}

// settledBy reports whether the message seq carrying the event id is the
// one that settled r with outcome (a redelivery of it). An unknown
// sequence (0) is never a redelivery.
func (r *record) settledBy(outcome, id string, seq uint64) bool {
	return r.Outcome == outcome && r.By == id && seq != 0 && r.Seq == seq
}

func result(r *record) (Result, error) {
	var d events.ApprovalRequestedData
	if err := events.DecodeData(r.Park, &d); err != nil {
		return Result{}, fmt.Errorf("the park of %s is unreadable: %w", r.Park.RunID(), err)
	}
	out := Result{Park: Park{Event: r.Park, Data: d}, Decided: map[string]Decision{}}
	for id, dd := range r.Decisions {
		out.Decided[id] = Decision{Data: dd}
	}
	return out, nil
}

// Decide records a decision (an approval_decided event, carried by the
// message at stream sequence seq) on the run's current park: the first
// valid decision on a call in work-stream order stands, whichever message
// is handled first (an undecided call takes the first one stored after
// the parking message and before seq, read from the stream, else this
// one; see firstDecision); a decision stored before the message that
// parked the run changes nothing, and so does, for a park stored with
// ParkAwaiting, one stored before the park's approval_requested (until
// that is known, Decide returns ErrUnsent); a decision for a call not parked now
// (another attempt or park, or no park) changes nothing and returns a
// zero Park, unless the message is the one whose handling stored the
// current park (a redelivery of the decision that resumed the run into
// it): then Republish is set. The decision that decides the park's last
// open call settles it (OutcomeResumed), unless the deadline settled it
// first; only a redelivery of that message reports Settled again.
func (s *Store) Decide(ctx context.Context, dec events.Envelope, seq uint64) (Result, error) {
	dd, malformed := events.DecodeDecision(dec)
	if malformed != nil {
		return Result{}, nil // malformed: the recorder records it; it decides nothing
	}
	var out Result
	// first is the call's first decision in stream order, read at most
	// once per park position (the record's from) across retries.
	first, scanned, scannedFrom := dd, false, uint64(0)
	err := s.update(ctx, dec.RunID(), func(r *record) (bool, error) {
		out = Result{}
		if r.Park.ID == "" {
			return false, nil
		}
		res, err := result(r)
		if err != nil {
			return false, err
		}
		if r.Outcome == "" && seq != 0 && r.From == seq {
			out = Result{Park: res.Park, Republish: true}
			return false, nil
		}
		if _, ok := res.Park.Data.Call(dd.Call); !ok || res.Park.Event.Attempt != dec.Attempt {
			return false, nil
		}
		out = res
		if r.Outcome != "" {
			out.Settled = r.settledBy(OutcomeResumed, dec.ID, seq)
			return false, nil
		}
		if _, seen := r.Decisions[dd.Call]; seen {
			return false, nil
		}
		if seq != 0 && seq < r.From {
			// Stored before the message whose handling parked the run,
			// so before the park's approval_requested: the history
			// records it as a decision on a call never parked.
			out = Result{}
			return false, nil
		}
		after := r.From
		if seq != 0 && r.Awaits {
			if r.Requested == 0 {
				return false, fmt.Errorf("decision %s at %d: %w", dec.ID, seq, &UnsentError{Park: r.Park})
			}
			if seq <= r.Requested {
				// Stored before the park's approval_requested (a guessed
				// call id): the history records it as a decision on a
				// call not parked yet. (A decision stored at its
				// sequence took the park's message id first: it is not
				// after the park, and no later decision's scan, which
				// starts after that sequence, takes it.)
				out = Result{}
				return false, nil
			}
			after = r.Requested
		}
		if seq != 0 && (!scanned || scannedFrom != after) {
			// The first decision on the call in stream order stands,
			// whichever message is handled first.
			if first, err = s.firstDecision(ctx, dec, dd, after, seq); err != nil {
				return false, err
			}
			scanned, scannedFrom = true, after
		}
		r.Decisions[dd.Call] = first
		out.Decided[dd.Call] = Decision{Data: first}
		if complete(res.Park, out.Decided) {
			r.Outcome, r.By, r.Seq, out.Settled = OutcomeResumed, dec.ID, seq, true
		}
		return true, nil
	})
	if err != nil {
		return Result{}, err
	}
	return out, nil
}

// Expire settles the run's park at its deadline (an approval_deadline
// event, carried by the message at stream sequence seq) when it is still
// the current park and no decision settled it first (OutcomeTimedOut);
// otherwise it changes nothing. Only a redelivery of the settling message
// reports Settled again.
func (s *Store) Expire(ctx context.Context, deadline events.Envelope, seq uint64) (Result, error) {
	var dd events.ApprovalDeadlineData
	if err := events.DecodeData(deadline, &dd); err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err := dd.Validate(); err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	var out Result
	err := s.update(ctx, deadline.RunID(), func(r *record) (bool, error) {
		out = Result{}
		if r.Park.ID == "" || r.Park.ID != dd.Request {
			return false, nil
		}
		res, err := result(r)
		if err != nil {
			return false, err
		}
		out = res
		if r.Outcome != "" {
			out.Settled = r.settledBy(OutcomeTimedOut, deadline.ID, seq)
			return false, nil
		}
		r.Outcome, r.By, r.Seq, out.Settled = OutcomeTimedOut, deadline.ID, seq, true
		return true, nil
	})
	if err != nil {
		return Result{}, err
	}
	return out, nil
}

// complete reports whether every call of the park is decided.
func complete(p Park, decided map[string]Decision) bool {
	for _, c := range p.Data.Calls {
		if _, ok := decided[c.ID]; !ok {
			return false
		}
	}
	return true
}
