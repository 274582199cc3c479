package approval

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go/jetstream"
)

// Admitter decides whether an event belongs to its run (the phases' run
// guard, runclaim.Store): a refusal wraps events.ErrConflict, any other
// error is transient.
type Admitter interface {
	Admit(ctx context.Context, e events.Envelope) error
}

// Option configures a Store.
type Option func(*Store)

// WithAdmitter makes an earlier decision found in the work stream count
// only when a admits it, as the worker and the recorder admit events: a
// decision they refuse decides nothing.
func WithAdmitter(a Admitter) Option { return func(s *Store) { s.admit = a } }

// WithMaxEventBytes bounds the events read from the work stream (as the
// worker decodes them); the default is the decoder's.
func WithMaxEventBytes(n int) Option { return func(s *Store) { s.decoder.MaxBytes = n } }

// WithClock gives the store a clock, by which a park ages: a park's
// approval_requested sequence reported after the stream's duplicate window
// may be a later copy's (see SetRequested). Without one, parks never age.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// ErrStream: the work stream could not be read.
var ErrStream = errors.New("could not read the work stream")

// firstDecision returns the first valid decision stored in the work
// stream for dec's call (the same event id: the same run, attempt and
// call) after sequence from and before seq, or dd (dec's own data) when
// there is none. It is the decision the history keeps: the recorder folds
// a run's events in stream order, and a later message with the same id
// is a duplicate of the first one it recorded.
//
// A decision stored before seq is still in the stream unless every
// consumer acknowledged it, the builder's included, which it does only
// after Decide recorded the call's decision: so while a call has none,
// all its earlier decisions are there to be read.
func (s *Store) firstDecision(ctx context.Context, dec events.Envelope, dd events.ApprovalDecidedData, from, seq uint64) (events.ApprovalDecidedData, error) {
	if from+1 >= seq {
		return dd, nil
	}
	stream, err := s.workStream(ctx)
	if err != nil {
		return dd, err
	}
	subject := events.KindApprovalDecided.Subject(dec.RunID())
	for next := from + 1; next < seq; {
		m, err := stream.GetMsg(ctx, next, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return dd, fmt.Errorf("%w: the decisions of %s before %d: %w", ErrStream, dec.RunID(), seq, err)
		}
		if m.Sequence >= seq {
			break
		}
		next = m.Sequence + 1
		e, err := s.decoder.Decode(m.Subject, m.Data)
		if err != nil || e.ID != dec.ID {
			continue // unreadable (refused), or another call's
		}
		d, err := events.DecodeDecision(e)
		if err != nil {
			continue // invalid: the history records it as refused
		}
		if s.admit != nil {
			if err := s.admit.Admit(ctx, e); errors.Is(err, events.ErrConflict) {
				continue // not this run's: refused
			} else if err != nil {
				return dd, fmt.Errorf("could not check that decision %s at %d belongs to its run: %w", e.ID, m.Sequence, err)
			}
		}
		return d, nil
	}
	return dd, nil
}

// workStream binds the work stream the first time it is needed and keeps
// it (a failed lookup is tried again next time).
func (s *Store) workStream(ctx context.Context) (jetstream.Stream, error) {
	s.workMu.Lock()
	defer s.workMu.Unlock()
	if s.work == nil {
		st, err := s.js.Stream(ctx, events.StreamWork)
		if err != nil {
			return nil, fmt.Errorf("%w %s: %w", ErrStream, events.StreamWork, err)
		}
		s.work = st
	}
	return s.work, nil
}
