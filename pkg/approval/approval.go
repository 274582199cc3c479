// Package approval reads a parked run's approval events back from the
// CODALI stream: the run's current park (its last approval_requested) and
// the decisions taken on its calls. Parks and decisions are events, so
// whoever resumes a run — any builder, after any restart — reads the same
// state from the stream and holds none in memory.
package approval

import (
	"context"
	"errors"
	"fmt"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrNoPark: the run has never been parked.
var ErrNoPark = errors.New("run has no approval request")

// Park is a run's current park: its last approval_requested event.
type Park struct {
	Event events.Envelope
	Data  events.ApprovalRequestedData
	// Seq is the event's sequence in the stream; decisions of this park
	// are stored after it.
	Seq uint64
}

// Reader reads approval events from the CODALI stream.
type Reader struct {
	stream  jetstream.Stream
	decoder events.Decoder
}

// NewReader looks the CODALI stream up.
func NewReader(ctx context.Context, js jetstream.JetStream, maxEventBytes int) (*Reader, error) {
	s, err := js.Stream(ctx, events.StreamWork)
	if err != nil {
		return nil, fmt.Errorf("could not look up stream %s: %w", events.StreamWork, err)
	}
	return &Reader{stream: s, decoder: events.Decoder{MaxBytes: maxEventBytes}}, nil
}

// LastPark returns the run's current park, or an error wrapping ErrNoPark.
func (r *Reader) LastPark(ctx context.Context, runID string) (Park, error) {
	subj := events.KindApprovalRequested.Subject(runID)
	m, err := r.stream.GetLastMsgForSubject(ctx, subj)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return Park{}, fmt.Errorf("%w: %s", ErrNoPark, runID)
	}
	if err != nil {
		return Park{}, fmt.Errorf("could not read the approval request of %s: %w", runID, err)
	}
	env, err := r.decoder.Decode(m.Subject, m.Data)
	if err != nil {
		return Park{}, err
	}
	var d events.ApprovalRequestedData
	if err := events.DecodeData(env, &d); err != nil {
		return Park{}, err
	}
	return Park{Event: env, Data: d, Seq: m.Sequence}, nil
}

// Decision is a call's decision and its sequence in the stream.
type Decision struct {
	Data events.ApprovalDecidedData
	Seq  uint64
}

// Completes reports whether the decision stored at seq is the one that
// completed the park: every call decided, none after seq. Exactly one
// decision event of a park completes it, so exactly one resumes the run.
func Completes(p Park, decided map[string]Decision, seq uint64) bool {
	if !Complete(p, decided) {
		return false
	}
	last := uint64(0)
	for _, d := range decided {
		last = max(last, d.Seq)
	}
	return last == seq
}

// maxDecisions bounds how many decision events Decisions reads.
const maxDecisions = 1000

// Decisions returns the first valid decision of each of the park's calls
// (later ones for the same call do not count), reading the run's
// approval_decided events stored after the park. Decisions for calls of
// other parks are ignored.
func (r *Reader) Decisions(ctx context.Context, p Park) (map[string]Decision, error) {
	subj := events.KindApprovalDecided.Subject(p.Event.RunID())
	out := map[string]Decision{}
	seq := p.Seq + 1
	for range maxDecisions {
		m, err := r.stream.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subj))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("could not read the decisions of %s: %w", p.Event.RunID(), err)
		}
		seq = m.Sequence + 1
		env, err := r.decoder.Decode(m.Subject, m.Data)
		if err != nil {
			continue // malformed: the recorder records it; it decides nothing
		}
		var d events.ApprovalDecidedData
		if events.DecodeData(env, &d) != nil || env.Attempt != p.Event.Attempt || events.KeyOf(env) != d.Call {
			continue
		}
		if _, ok := p.Data.Call(d.Call); !ok {
			continue
		}
		if _, seen := out[d.Call]; !seen {
			out[d.Call] = Decision{Data: d, Seq: m.Sequence}
		}
	}
	return out, nil
}

// Complete reports whether every call of the park is decided.
func Complete(p Park, decided map[string]Decision) bool {
	for _, c := range p.Data.Calls {
		if _, ok := decided[c.ID]; !ok {
			return false
		}
	}
	return true
}
