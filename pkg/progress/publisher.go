package progress

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codali-dev/codali/pkg/activity"
	"github.com/nats-io/nats.go"
)

// DefaultBuffer is how many messages may wait for the connection.
const DefaultBuffer = 4096

// Publisher sends progress messages on core NATS from one goroutine, in
// the order they were produced. Safe for concurrent use.
type Publisher struct {
	nc      *nats.Conn
	ch      chan outgoing
	redact  func(string) string
	now     func() time.Time
	log     *slog.Logger
	dropped atomic.Uint64
	mu      sync.RWMutex
	closed  bool
	done    chan struct{}
}

type outgoing struct {
	subject string
	msg     Message
}

// NewPublisher starts a publisher on nc with room for buffer waiting
// messages (<= 0: DefaultBuffer). redact (nil: none) is applied to every
// text (to an activity's name and detail unless Begin redacted them
// already: activity.WithRedaction). Close stops it.
func NewPublisher(nc *nats.Conn, buffer int, redact func(string) string, log *slog.Logger) *Publisher {
	if buffer <= 0 {
		buffer = DefaultBuffer
	}
	if redact == nil {
		redact = func(s string) string { return s }
	}
	if log == nil {
		log = slog.Default()
	}
	p := &Publisher{nc: nc, ch: make(chan outgoing, buffer), redact: redact, now: time.Now, log: log, done: make(chan struct{})}
	go p.run()
	return p
}

func (p *Publisher) run() {
	defer close(p.done)
	for o := range p.ch {
		raw, err := json.Marshal(o.msg)
		if err != nil {
			continue // a Message of strings and numbers always marshals
		}
		// Core NATS publish does not wait for subscribers: a slow reader
		// is the server's problem, never the phase's.
		if err := p.nc.Publish(o.subject, raw); err != nil {
			p.dropped.Add(1)
		}
	}
}

// Close publishes what is buffered and stops. Later messages are dropped.
func (p *Publisher) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	close(p.ch)
	p.mu.Unlock()
	<-p.done
}

// Dropped counts the messages dropped because the buffer was full or the
// connection refused them.
func (p *Publisher) Dropped() uint64 { return p.dropped.Load() }

// send queues a message. Output is dropped when the buffer is full;
// starts and ends wait at most controlWait for room, so that a reader
// sees activities end even after a burst of output. Neither ever waits
// for a reader: the buffer drains into the connection, and core NATS
// does not wait for subscribers.
func (p *Publisher) send(subject string, m Message) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		p.dropped.Add(1)
		return
	}
	o := outgoing{subject: subject, msg: m}
	select {
	case p.ch <- o:
		return
	default:
	}
	if m.Type == TypeOutput {
		p.dropped.Add(1)
		return
	}
	t := time.NewTimer(controlWait)
	defer t.Stop()
	select {
	case p.ch <- o:
	case <-t.C:
		p.dropped.Add(1)
	}
}

// controlWait bounds how long a start or end waits for buffer room.
const controlWait = time.Second

// Handling starts the progress of one phase handling: it publishes
// phase.start and returns a context whose activities are published, and
// the function that publishes phase.end with the handling's error.
func (p *Publisher) Handling(ctx context.Context, runID, phase string, attempt int, eventID string) (context.Context, func(err error)) {
	h := &handling{p: p, subject: Subject(runID, phase),
		base: Message{RunID: runID, Phase: phase, Attempt: attempt, Handling: eventID}}
	h.emit(Message{Type: TypePhaseStart})
	return activity.WithObserver(ctx, h), func(err error) {
		m := Message{Type: TypePhaseEnd, OK: ok(err)}
		if err != nil {
			m.Error = clip(p.redact(err.Error()))
		}
		h.emit(m)
	}
}

// handling is the activity observer of one handling.
type handling struct {
	p       *Publisher
	subject string
	base    Message
	mu      sync.Mutex
	seq     uint64
}

// emit numbers and queues a message; the lock keeps sequence and queue
// order the same.
func (h *handling) emit(m Message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	m.RunID, m.Phase, m.Attempt, m.Handling = h.base.RunID, h.base.Phase, h.base.Attempt, h.base.Handling
	m.Seq, m.Time = h.seq, h.p.now().UTC()
	h.p.send(h.subject, m)
}

// names returns e's name and detail as a message carries them: redacted
// (here, unless Begin redacted them already: activity.WithRedaction) and
// clipped.
func (h *handling) names(e activity.Event) (string, string) {
	if !e.Redacted() {
		e.Name, e.Detail = h.p.redact(e.Name), h.p.redact(e.Detail)
	}
	return clip(e.Name), clip(e.Detail)
}

func (h *handling) Begin(ctx context.Context, e activity.Event) (context.Context, func(error)) {
	var detail string
	e.Name, detail = h.names(e)
	h.emit(Message{Type: TypeStart, Activity: string(e.Kind), Name: e.Name, Detail: detail, Step: e.Step})
	return ctx, func(err error) {
		m := Message{Type: TypeEnd, Activity: string(e.Kind), Name: e.Name, Step: e.Step, OK: ok(err)}
		if err != nil {
			m.Error = clip(h.p.redact(err.Error()))
		}
		h.emit(m)
	}
}

func (h *handling) Output(_ context.Context, e activity.Event, text string) {
	name := e.Name
	if !e.Redacted() {
		name = h.p.redact(name)
	}
	h.emit(Message{Type: TypeOutput, Activity: string(e.Kind), Name: clip(name), Step: e.Step, Text: clip(h.p.redact(text))})
}

func ok(err error) *bool {
	b := err == nil
	return &b
}
