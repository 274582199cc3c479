// Package raostore keeps RAO histories in the JetStream stream RAO, one
// subject per run (rao.<run_id>). Appends are optimistic: each carries the
// stream sequence the writer last saw for the run's subject, so a stale or
// concurrent writer is refused instead of forking the history, and a
// Nats-Msg-Id per event so a retried publish is de-duplicated.
package raostore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrConflict: the run's history changed since the writer loaded it.
var ErrConflict = errors.New("history changed concurrently")

// Store reads and writes histories. Safe for concurrent use.
type Store struct {
	js     jetstream.JetStream
	stream jetstream.Stream
}

// Open returns a Store over the RAO stream, which must exist
// (bus.Provision creates it).
func Open(ctx context.Context, js jetstream.JetStream) (*Store, error) {
	s, err := js.Stream(ctx, events.StreamRAO)
	if err != nil {
		return nil, fmt.Errorf("could not open stream %s: %w", events.StreamRAO, err)
	}
	return &Store{js: js, stream: s}, nil
}

// Load returns the run's events in order and the stream sequence of the
// last one (0 for a run without history). A message that does not decode
// is an error: a history is never silently shortened.
func (s *Store) Load(ctx context.Context, runID string) ([]rao.Event, uint64, error) {
	subject := events.RAOSubject(runID)
	last, err := s.stream.GetLastMsgForSubject(ctx, subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("could not read the last event of %s: %w", runID, err)
	}
	cons, err := s.stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{subject}, DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return nil, 0, fmt.Errorf("could not read history of %s: %w", runID, err)
	}
	var out []rao.Event
	for {
		batch, err := cons.FetchNoWait(256)
		if err != nil {
			return nil, 0, fmt.Errorf("could not read history of %s: %w", runID, err)
		}
		done := false
		for m := range batch.Messages() {
			ev, err := rao.Decode(m.Data())
			if err != nil {
				return nil, 0, fmt.Errorf("history of %s holds an undecodable event: %w", runID, err)
			}
			out = append(out, ev)
			md, err := m.Metadata()
			if err != nil {
				return nil, 0, fmt.Errorf("could not read history of %s: %w", runID, err)
			}
			if md.Sequence.Stream >= last.Sequence {
				done = true
			}
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
			return nil, 0, fmt.Errorf("could not read history of %s: %w", runID, err)
		}
		if done {
			return out, last.Sequence, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, 0, fmt.Errorf("could not read history of %s: %w", runID, err)
		}
	}
}

// Append stores ev when the last message on the run's subject still has
// stream sequence expected (0: the run has no history yet), and returns the
// new message's stream sequence. It returns an error wrapping ErrConflict
// when another writer appended first. A publish the server recognises as a
// duplicate (same event id within the duplicate window) returns the
// original's sequence.
func (s *Store) Append(ctx context.Context, ev rao.Event, expected uint64) (uint64, error) {
	data, err := rao.Encode(ev)
	if err != nil {
		return 0, err
	}
	m := nats.NewMsg(events.RAOSubject(ev.RunID))
	m.Data = data
	m.Header.Set(events.HeaderMsgID, "rao."+ev.ID)
	ack, err := s.js.PublishMsg(ctx, m, jetstream.WithExpectLastSequencePerSubject(expected))
	if err != nil {
		var apiErr *jetstream.APIError
		if errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence {
			return 0, fmt.Errorf("%w: %s: %w", ErrConflict, ev.ID, err)
		}
		return 0, fmt.Errorf("could not append %s: %w", ev.ID, err)
	}
	return ack.Sequence, nil
}

// Compact purges the run's events with a seq below firstKeptSeq, so its
// history starts at the checkpoint firstKeptSeq.
func (s *Store) Compact(ctx context.Context, runID string, firstKeptSeq uint64) error {
	evs, _, err := s.Load(ctx, runID)
	if err != nil {
		return err
	}
	keep := uint64(0)
	for _, e := range evs {
		if e.Seq >= firstKeptSeq {
			keep++
		}
	}
	if err := s.stream.Purge(ctx, jetstream.WithPurgeSubject(events.RAOSubject(runID)), jetstream.WithPurgeKeep(keep)); err != nil {
		return fmt.Errorf("could not compact history of %s: %w", runID, err)
	}
	return nil
}

// Runs lists the run ids that have a history, sorted.
func (s *Store) Runs(ctx context.Context) ([]string, error) {
	info, err := s.stream.Info(ctx, jetstream.WithSubjectFilter(events.SubjectRAOAll))
	if err != nil {
		return nil, fmt.Errorf("could not list histories: %w", err)
	}
	var out []string
	for subj := range info.State.Subjects {
		out = append(out, strings.TrimPrefix(subj, events.SubjectRAOPrefix+"."))
	}
	sort.Strings(out)
	return out, nil
}

// LastSequence is the stream's last sequence (for purity checks).
func (s *Store) LastSequence(ctx context.Context) (uint64, error) {
	info, err := s.stream.Info(ctx)
	if err != nil {
		return 0, err
	}
	return info.State.LastSeq, nil
}
