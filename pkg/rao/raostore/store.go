package raostore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// loadBatch is how many messages Load asks the server for at a time.
const loadBatch = 256

// Store reads and writes run histories in the RAO stream. It is safe for
// concurrent use; writers to one run are serialised by Append's expected
// sequence check.
type Store struct {
	js jetstream.JetStream
	st jetstream.Stream
	// atomic: AppendBatch sends several events as one atomic batch
	// (batchesPay).
	atomic atomic.Bool
}

// Open returns a Store over the RAO stream, which must exist (see
// bus.Provision). It returns an error wrapping ErrNoStream when it does
// not, or the server's or context's error.
func Open(ctx context.Context, js jetstream.JetStream) (*Store, error) {
	st, err := js.Stream(ctx, StreamName)
	if err != nil {
		return nil, fmt.Errorf("could not open stream %s: %w", StreamName, noStream(err))
	}
	s := &Store{js: js, st: st}
	if info := st.CachedInfo(); info != nil {
		s.atomic.Store(batchesPay(info.Config))
	}
	return s, nil
}

// noStream adds ErrNoStream to errors saying the stream is missing.
func noStream(err error) error {
	if errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrNoResponders) {
		return fmt.Errorf("%w: %w", ErrNoStream, err)
	}
	return err
}

func checkRunID(runID string) error {
	if err := events.ValidateRunID(runID); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidRunID, err)
	}
	return nil
}

// stored is an event with the stream sequence of its message.
type stored struct {
	ev        rao.Event
	streamSeq uint64
}

// Load returns the run's events in stream order and the stream sequence of
// the last one, to pass to Append (0 and no events for a run without
// history). It reads the subject once with an ordered consumer, stopping at
// the last message present when it started. A message that is not a valid
// event of the run fails the whole load with a *CorruptEventError (wrapping
// ErrCorruptEvent): a history is never silently shortened. Other errors
// wrap ErrInvalidRunID, ErrNoStream, or the server's or context's error.
func (s *Store) Load(ctx context.Context, runID string) ([]rao.Event, uint64, error) {
	msgs, last, err := s.load(ctx, runID)
	if err != nil {
		return nil, 0, err
	}
	out := make([]rao.Event, len(msgs))
	for i, m := range msgs {
		out[i] = m.ev
	}
	return out, last, nil
}

func (s *Store) load(ctx context.Context, runID string) ([]stored, uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, loadTimeout)
	defer cancel()
	last, err := s.LastSeq(ctx, runID)
	if err != nil {
		return nil, 0, fmt.Errorf("could not read the last event of %s: %w", runID, err)
	}
	if last == 0 {
		return nil, 0, nil
	}
	subject := Subject(runID)
	cons, err := s.st.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects:    []string{subject},
		DeliverPolicy:     jetstream.DeliverAllPolicy,
		InactiveThreshold: time.Minute,
	})
	if err != nil {
		return nil, 0, fmt.Errorf("could not read history of %s: %w", runID, noStream(err))
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(loadBatch))
	if err != nil {
		return nil, 0, fmt.Errorf("could not read history of %s: %w", runID, err)
	}
	defer s.release(cons, it)
	// An ordered consumer of a replicated stream may be placed on a
	// follower that has not yet applied the newest messages, so its
	// NumPending can read 0 before the run's last event. Only the
	// stream leader (LastSeq) tells an emptied or shortened subject from
	// a lagging replica; on lag, Next waits for the replica to catch up.
	var out []stored
	if info := cons.CachedInfo(); info != nil && info.NumPending == 0 {
		if now, err := s.LastSeq(ctx, runID); err != nil {
			return nil, 0, fmt.Errorf("could not read the last event of %s: %w", runID, err)
		} else if now == 0 {
			return nil, 0, nil // the subject was emptied (purge, expiry) meanwhile
		}
	}
	for {
		m, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			return nil, 0, fmt.Errorf("could not read history of %s: %w", runID, err)
		}
		md, err := m.Metadata()
		if err != nil {
			return nil, 0, fmt.Errorf("could not read history of %s: %w", runID, err)
		}
		seq := md.Sequence.Stream
		if seq > last {
			break // appended after Load started
		}
		ev, err := rao.Decode(m.Data())
		if err == nil && ev.RunID != runID {
			err = fmt.Errorf("event of run %q filed under run %q", ev.RunID, runID)
		}
		if err != nil {
			return nil, 0, &CorruptEventError{StreamSeq: seq, Err: err}
		}
		out = append(out, stored{ev: ev, streamSeq: seq})
		if seq == last {
			break
		}
		if md.NumPending == 0 {
			done, err := s.endsAt(ctx, runID, seq)
			if err != nil {
				return nil, 0, err
			}
			if done {
				break // the newest messages were removed meanwhile (expiry)
			}
		}
	}
	if len(out) == 0 {
		return nil, 0, nil
	}
	return out, out[len(out)-1].streamSeq, nil
}

// endsAt reports whether the run's history, as the stream leader sees it,
// now ends at or before seq: the consumer's replica has nothing newer
// because nothing newer exists, not because it lags.
func (s *Store) endsAt(ctx context.Context, runID string, seq uint64) (bool, error) {
	now, err := s.LastSeq(ctx, runID)
	if err != nil {
		return false, fmt.Errorf("could not read the last event of %s: %w", runID, err)
	}
	return now <= seq, nil
}

// loadTimeout bounds reading (or compacting) one run's history; every
// request of the recorder is bounded, so one lost with a dying server is
// retried instead of waiting out the handler's timeout.
const loadTimeout = 30 * time.Second

// release stops the iterator and deletes the ordered consumer's server
// side now rather than when it expires. Failures only leave the consumer
// to expire.
func (s *Store) release(cons jetstream.Consumer, it jetstream.MessagesContext) {
	it.Stop()
	info := cons.CachedInfo()
	if info == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.st.DeleteConsumer(ctx, info.Name)
}

// MsgID returns the de-duplication ID Append publishes ev with:
// rao.<run_id>.<cause>, or rao.<run_id>.<seq> for events without a cause.
// A cause must therefore identify one event within its run.
func MsgID(ev rao.Event) string {
	key := ev.Cause
	if key == "" {
		key = fmt.Sprint(ev.Seq)
	}
	return events.RAOSubject(ev.RunID) + "." + key
}

// Append publishes ev (rao.Encode) on the run's subject provided the last
// message there still has stream sequence expected (0: the run has no
// history yet), and returns the new message's stream sequence.
//
// When another writer appended first, the error is a *ConflictError
// (wrapping ErrConflict): load again, rebuild the event, retry. When the
// server already holds a message with ev's MsgID — the event's cause was
// recorded before, by a redelivered or restarted writer, or this is a
// retry after a lost acknowledgement — nothing is stored and Append
// returns the stored message's sequence with an error wrapping both
// ErrDuplicate and ErrConflict: the caller's view is stale either way, and
// the stored event (not ev) is the one in the history, so reload before
// appending more. Other errors wrap rao.ErrInvalidEvent (ev does not
// encode), ErrNoStream, or the server's or context's error.
func (s *Store) Append(ctx context.Context, ev rao.Event, expected uint64) (uint64, error) {
	if err := checkRunID(ev.RunID); err != nil {
		return 0, err
	}
	sealed, err := rao.Seal(ev)
	if err != nil {
		return 0, fmt.Errorf("could not append event: %w", err)
	}
	return s.AppendSealed(ctx, sealed, expected)
}

// AppendSealed is Append for an event already encoded (rao.Seal,
// rao.Chain.NextSealed): it stores its Data as it is. The zero Sealed
// fails with ErrInvalidRunID.
func (s *Store) AppendSealed(ctx context.Context, sealed rao.Sealed, expected uint64) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*bus.RequestTimeout)
	defer cancel()
	ev, data := sealed.Event(), sealed.Data()
	if err := checkRunID(ev.RunID); err != nil {
		return 0, err
	}
	id := MsgID(ev)
	m := nats.NewMsg(Subject(ev.RunID))
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, id)
	ack, err := s.js.PublishMsg(ctx, m,
		jetstream.WithExpectStream(StreamName),
		jetstream.WithExpectLastSequencePerSubject(expected))
	switch {
	case err == nil && ack.Duplicate:
		return ack.Sequence, duplicateError(ev, id, ack.Sequence)
	case err == nil:
		return ack.Sequence, nil
	case bus.IsWrongLastSequence(err):
		return s.conflict(ctx, ev, id, data, expected, err)
	default:
		return 0, fmt.Errorf("could not append %s: %w", ev.ID, noStream(err))
	}
}

func duplicateError(ev rao.Event, id string, seq uint64) error {
	return fmt.Errorf("%w (%w): %s: message id %s is stream seq %d", ErrDuplicate, ErrConflict, ev.ID, id, seq)
}

// conflict turns a wrong-last-sequence rejection into a ConflictError, or
// into a duplicate when the subject's last message is this very event (a
// retried append whose acknowledgement was lost).
func (s *Store) conflict(ctx context.Context, ev rao.Event, id string, data []byte, expected uint64, cause error) (uint64, error) {
	ce := &ConflictError{Expected: expected, Err: cause}
	last, err := s.st.GetLastMsgForSubject(ctx, Subject(ev.RunID))
	if err != nil {
		return 0, ce
	}
	ce.Actual = last.Sequence
	if last.Header.Get(jetstream.MsgIDHeader) == id && bytes.Equal(last.Data, data) {
		return last.Sequence, duplicateError(ev, id, last.Sequence)
	}
	return 0, ce
}

// Compact purges the run's events before the event with seq firstKeptSeq
// (typically from rao.CompactionPoint), which must be a checkpoint, so the
// remaining history replays and verifies on its own. It purges by stream
// sequence, so events appended concurrently are never touched. Errors wrap
// ErrNotCheckpoint, rao.ErrNotFound (no such event in the history), or
// those of Load and of the server's purge.
func (s *Store) Compact(ctx context.Context, runID string, firstKeptSeq uint64) error {
	ctx, cancel := context.WithTimeout(ctx, loadTimeout)
	defer cancel()
	msgs, _, err := s.load(ctx, runID)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(msgs, func(m stored) bool { return m.ev.Seq == firstKeptSeq })
	if i < 0 {
		return fmt.Errorf("could not compact %s: %w: seq %d", runID, rao.ErrNotFound, firstKeptSeq)
	}
	if !msgs[i].ev.Checkpoint {
		return fmt.Errorf("could not compact %s: %w: seq %d is not a checkpoint", runID, ErrNotCheckpoint, firstKeptSeq)
	}
	if i == 0 {
		return nil
	}
	if err := s.st.Purge(ctx, jetstream.WithPurgeSubject(Subject(runID)), jetstream.WithPurgeSequence(msgs[i].streamSeq)); err != nil {
		return fmt.Errorf("could not compact %s: %w", runID, err)
	}
	return nil
}

// Enforce applies the retention limits r to the run at time now: it
// compacts to r.CompactionPoint when that finds a cut. It returns the
// first kept seq and whether anything was cut. Errors are those of Load,
// Retention.CompactionPoint and Compact.
func (s *Store) Enforce(ctx context.Context, runID string, r rao.Retention, now time.Time) (uint64, bool, error) {
	evs, _, err := s.Load(ctx, runID)
	if err != nil {
		return 0, false, err
	}
	first, ok, err := r.CompactionPoint(evs, now)
	if err != nil || !ok {
		return 0, false, err
	}
	if err := s.Compact(ctx, runID, first); err != nil {
		return 0, false, err
	}
	return first, true, nil
}

// Runs lists the IDs of runs with a stored history, sorted. Errors wrap
// ErrNoStream or the server's error.
func (s *Store) Runs(ctx context.Context) ([]string, error) {
	info, err := s.st.Info(ctx, jetstream.WithSubjectFilter(events.SubjectRAOAll))
	if err != nil {
		return nil, fmt.Errorf("could not list histories: %w", noStream(err))
	}
	prefix := events.RAOSubject("")
	out := make([]string, 0, len(info.State.Subjects))
	for subj := range info.State.Subjects {
		out = append(out, strings.TrimPrefix(subj, prefix))
	}
	slices.Sort(out)
	return out, nil
}

// AllStats loads every run and returns rao.Stats for each. Runs that fail
// to load or measure are left out and their errors returned joined, with
// the stats of the others.
func (s *Store) AllStats(ctx context.Context) (map[string]rao.Stat, error) {
	runs, err := s.Runs(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]rao.Stat, len(runs))
	var errs []error
	for _, id := range runs {
		evs, _, err := s.Load(ctx, id)
		if err != nil {
			errs = append(errs, fmt.Errorf("run %s: %w", id, err))
			continue
		}
		st, err := rao.Stats(evs)
		if err != nil {
			errs = append(errs, fmt.Errorf("run %s: %w", id, err))
			continue
		}
		out[id] = st
	}
	return out, errors.Join(errs...)
}

// LastSequence returns the stream's last sequence (all runs), e.g. to show
// that a read-only operation appended nothing. Errors wrap ErrNoStream or
// the server's error.
func (s *Store) LastSequence(ctx context.Context) (uint64, error) {
	info, err := s.st.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("could not read stream %s: %w", StreamName, noStream(err))
	}
	return info.State.LastSeq, nil
}

// LastSeq returns the stream sequence of the run's last event (0 when it
// has none): one lookup, to tell whether a cached history is current.
// Errors wrap ErrInvalidRunID, ErrNoStream or the server's error.
func (s *Store) LastSeq(ctx context.Context, runID string) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, bus.RequestTimeout)
	defer cancel()
	if err := checkRunID(runID); err != nil {
		return 0, err
	}
	m, err := s.st.GetLastMsgForSubject(ctx, Subject(runID))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, noStream(err)
	}
	return m.Sequence, nil
}
