package recorder

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go/jetstream"
)

// streamOrder keeps each run's history in CODALI stream order whatever
// the order in which the recorder's concurrent handlers (or redeliveries)
// see the events: before an event is folded, every earlier event of its run
// still in the stream is folded first. The work stream has interest
// retention, so an event the recorder has not acknowledged (and so may not
// have folded) is still there; events already folded are skipped by cause.
//
// Looking the earlier events up is a request to the stream's leader, which
// answers with the run's next message (with runs interleaved in the stream,
// usually the event in hand). It is spared when this process knows there
// is nothing to fold: the recorder's consumer takes every message of the
// stream and delivers new ones in stream order, so when every sequence
// from the run's folded position up to the event was first delivered to
// this process (none went to another recorder, none was lost) and each of
// them that belongs to the run is folded, no earlier event of the run
// remains. Anything else (a gap, an event of the run delivered but not
// folded yet, a failed one, a restart) looks up as before; an event that
// does not fold is not waited for (a lookup skips it too).
type streamOrder struct {
	js      jetstream.JetStream
	decoder events.Decoder

	mu     sync.Mutex
	stream jetstream.Stream
	// next is, per run, the stream sequence from which this process has
	// not yet folded the run's events (every earlier one is folded).
	next map[string]uint64
	// seen says which sequences were first delivered to this process.
	seen deliveredSeqs
	// unfolded lists, per run, the sequences delivered to this process
	// and not folded yet.
	unfolded map[string]map[uint64]struct{}
}

// maxOrderedRuns bounds the per-run positions kept; past it an arbitrary
// one is dropped (it is then found again by scanning from the stream's
// start).
const maxOrderedRuns = 4096

func newStreamOrder(js jetstream.JetStream, maxEventBytes int) *streamOrder {
	return &streamOrder{js: js, decoder: events.Decoder{MaxBytes: maxEventBytes}, next: map[string]uint64{},
		unfolded: map[string]map[uint64]struct{}{}}
}

// delivered notes that the run's event at seq reached this process
// (first is whether it is the message's first delivery); a handler calls
// it before anything else, and folded when the event is folded.
func (o *streamOrder) delivered(runID string, seq uint64, first bool) {
	if seq == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	u := o.unfolded[runID]
	if u == nil {
		if len(o.unfolded) >= maxOrderedRuns {
			// Forget an arbitrary run, and where its events were folded
			// up to: it is looked up again. Which sequences were
			// delivered here is forgotten too: a handler of that run
			// already past its lookup notes a folded position again,
			// and an event of the run delivered before now, not folded
			// and no longer listed, must still be looked up.
			for k := range o.unfolded {
				delete(o.unfolded, k)
				delete(o.next, k)
				break
			}
			o.seen = deliveredSeqs{}
		}
		u = map[uint64]struct{}{}
		o.unfolded[runID] = u
	}
	if first {
		o.seen.add(seq)
	}
	u[seq] = struct{}{}
}

func (o *streamOrder) workStream(ctx context.Context) (jetstream.Stream, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stream != nil {
		return o.stream, nil
	}
	sctx, cancel := context.WithTimeout(ctx, bus.RequestTimeout)
	defer cancel()
	s, err := o.js.Stream(sctx, events.StreamWork)
	if err != nil {
		return nil, fmt.Errorf("could not open stream %s: %w", events.StreamWork, err)
	}
	o.stream = s
	return s, nil
}

// behind reports whether the run may have events before seq in the
// stream that this process has not folded (predecessors then looks).
func (o *streamOrder) behind(runID string, seq uint64) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	from, known := o.next[runID]
	if max(from, 1) >= seq {
		return false
	}
	if !known || !o.seen.all(from, seq) {
		return true
	}
	for u := range o.unfolded[runID] {
		if u < seq {
			return true
		}
	}
	return false
}

// predecessors returns the steps of the run's events stored in the stream
// before seq, in stream order, that this process has not folded yet. An
// earlier event that cannot be decoded or folded is left to its own
// delivery (which dead-letters it).
func (o *streamOrder) predecessors(ctx context.Context, runID string, seq uint64) ([]audit.Step, error) {
	o.mu.Lock()
	from := max(o.next[runID], 1)
	o.mu.Unlock()
	if from >= seq {
		return nil, nil
	}
	s, err := o.workStream(ctx)
	if err != nil {
		return nil, err
	}
	subject := events.RunSubjects(runID)
	var steps []audit.Step
	for from < seq {
		gctx, cancel := context.WithTimeout(ctx, bus.RequestTimeout)
		m, err := s.GetMsg(gctx, from, jetstream.WithGetMsgSubject(subject))
		cancel()
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("could not read the events of %s before %d: %w", runID, seq, err)
		}
		if m.Sequence >= seq {
			break
		}
		from = m.Sequence + 1
		env, err := o.decoder.Decode(m.Subject, m.Data)
		if err != nil {
			continue
		}
		more, err := audit.Fold(env)
		if err != nil {
			continue
		}
		steps = append(steps, more...)
	}
	return steps, nil
}

// unfoldable notes that the run's event at seq does not fold: it is never
// folded, and a lookup skips it too, so it is no longer listed as
// unfolded.
func (o *streamOrder) unfoldable(runID string, seq uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.unlist(runID, seq)
}

// unlist removes seq from the run's unfolded events; o.mu is held.
func (o *streamOrder) unlist(runID string, seq uint64) {
	if u := o.unfolded[runID]; u != nil {
		delete(u, seq)
		if len(u) == 0 {
			delete(o.unfolded, runID)
		}
	}
}

// folded notes that every event of the run up to seq is folded; ended
// forgets the run.
func (o *streamOrder) folded(runID string, seq uint64, ended bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.unlist(runID, seq)
	if ended {
		// Forgetting where an ended run was folded up to is safe: a late
		// event of it looks up (the events of its own still unfolded
		// stay listed).
		delete(o.next, runID)
		return
	}
	if seq+1 <= o.next[runID] {
		return
	}
	if _, ok := o.next[runID]; !ok && len(o.next) >= maxOrderedRuns {
		for k := range o.next {
			delete(o.next, k)
			break
		}
	}
	o.next[runID] = seq + 1
}
