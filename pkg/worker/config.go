package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/msgid"
)

// Config configures a Runtime. Zero fields take the defaults documented on
// each field.
type Config struct {
	// Service is the service name, used for the durable consumer, the
	// dead-letter subject, metrics labels and the event source. Required.
	Service string
	// Stream is the stream to consume. Default events.StreamWork.
	Stream string
	// Consumer is the durable consumer name. Default Service.
	Consumer string
	// Concurrency is how many events are handled at once. Default 4.
	Concurrency int
	// MaxDeliver is how many deliveries a message gets before it is
	// dead-lettered and its run ends failed. Default 8: with the default
	// backoff a transient failure is retried for about two minutes.
	MaxDeliver int
	// AckWait is the consumer's ack wait; while a handler runs the runtime
	// sends InProgress every AckWait/3. Default 30s.
	AckWait time.Duration
	// HandlerTimeout bounds one handler call. Default 5m (limits.timeoutMs).
	HandlerTimeout time.Duration
	// DrainTimeout bounds how long shutdown waits for in-flight handlers
	// before cancelling them (their messages are then redelivered). Default 30s.
	DrainTimeout time.Duration
	// Backoff shapes the redelivery delay of transient failures.
	Backoff Backoff
	// MaxEventBytes is the largest accepted (and produced) event. Default
	// events.DefaultMaxEventBytes.
	MaxEventBytes int
	// EndRunOnFailure makes permanent failures, undecodable events with a
	// readable run id, and dead-lettered messages publish the run's `failed`
	// event. Phase workers set it; the recorder does not.
	EndRunOnFailure bool
	// CompleteFailure, when set, completes the verdict of a `failed` event
	// the runtime publishes (for instance with the run's RL4-CODEX payload
	// at integrity red) before it is sent.
	CompleteFailure func(runID string, attempt int, v *events.VerdictData)
	// FailureTraceParent, when set, is the trace context (a W3C
	// traceparent, "" for none) of the `failed` event the runtime
	// publishes to end the run of in, and of the handling's duration
	// exemplar when it has no output; nil keeps in's. The handler's span
	// has ended by then, so a service that does not follow in's trace
	// context (an agent's, under tracing.agentTraceContext "link") must
	// not let the runtime hand it on either.
	FailureTraceParent func(in events.Envelope) string
	// Redact, when set, redacts the reason of a `failed` event the runtime
	// publishes and of a dead-lettered message
	// (events.HeaderDeadLetterReason), before either is cut to its limit:
	// it is an error's text, which may quote a model server's answer or a
	// command's output.
	Redact func(string) string
	// Guard, when set, decides whether each event belongs to its run
	// before the handler sees it (runclaim.Store). A refused event is
	// dead-lettered with the reason and never ends or changes its run.
	Guard Guard
	// MsgIDs is the message id key (bus.MsgIDKey): every event the runtime
	// publishes gets the Nats-Msg-Id EventMsg makes with it, which agents
	// cannot predict. Required: a runtime without it publishes nothing.
	MsgIDs msgid.Key
}

// Guard decides whether an event belongs to its run.
type Guard interface {
	// Admit returns nil for an event of its run, an error wrapping
	// events.ErrConflict for one that is not (refused), and any other
	// error when it cannot tell yet (retried).
	Admit(ctx context.Context, e events.Envelope) error
	// Claimed reports whether a request was accepted for the run, or a
	// readable one stored before stream sequence before will be: a
	// malformed request on such a run is then refused instead of ending
	// the run.
	Claimed(ctx context.Context, runID string, before uint64) (bool, error)
}

// Backoff is an exponential backoff: the n-th redelivery waits about
// Initial*Multiplier^(n-1), capped at Max, with ±Jitter randomisation.
type Backoff struct {
	// Initial is the first delay. Default 1s.
	Initial time.Duration
	// Max caps the delay. Default 60s.
	Max time.Duration
	// Multiplier grows the delay. Default 2.
	Multiplier float64
	// Jitter is the randomisation factor in [0,1). Default 0.2.
	Jitter float64
}

func (c *Config) setDefaults() {
	if c.Stream == "" {
		c.Stream = events.StreamWork
	}
	if c.Consumer == "" {
		c.Consumer = c.Service
	}
	if c.Concurrency == 0 {
		c.Concurrency = 4
	}
	if c.MaxDeliver == 0 {
		c.MaxDeliver = 8
	}
	if c.AckWait == 0 {
		c.AckWait = 30 * time.Second
	}
	if c.HandlerTimeout == 0 {
		c.HandlerTimeout = 5 * time.Minute
	}
	if c.DrainTimeout == 0 {
		c.DrainTimeout = 30 * time.Second
	}
	if c.MaxEventBytes == 0 {
		c.MaxEventBytes = events.DefaultMaxEventBytes
	}
	if c.Backoff.Initial == 0 {
		c.Backoff.Initial = time.Second
	}
	if c.Backoff.Max == 0 {
		c.Backoff.Max = 60 * time.Second
	}
	if c.Backoff.Multiplier == 0 {
		c.Backoff.Multiplier = 2
	}
	if c.Backoff.Jitter == 0 {
		c.Backoff.Jitter = 0.2
	}
}

// Validate reports every problem at once, each wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...))
	}
	if c.Service == "" {
		bad("service name is required")
	}
	if c.MsgIDs.IsZero() {
		bad("message id key is required")
	}
	if c.Concurrency < 1 {
		bad("concurrency %d (must be >= 1)", c.Concurrency)
	}
	if c.MaxDeliver < 1 {
		bad("max deliver %d (must be >= 1)", c.MaxDeliver)
	}
	if c.AckWait < time.Second {
		bad("ack wait %s (must be >= 1s)", c.AckWait)
	}
	if c.HandlerTimeout <= 0 {
		bad("handler timeout %s (must be > 0)", c.HandlerTimeout)
	}
	if c.DrainTimeout <= 0 {
		bad("drain timeout %s (must be > 0)", c.DrainTimeout)
	}
	if c.MaxEventBytes < 1024 {
		bad("max event bytes %d (must be >= 1024)", c.MaxEventBytes)
	}
	if c.Backoff.Initial <= 0 || c.Backoff.Max < c.Backoff.Initial {
		bad("backoff initial %s / max %s (need 0 < initial <= max)", c.Backoff.Initial, c.Backoff.Max)
	}
	if c.Backoff.Multiplier < 1 {
		bad("backoff multiplier %v (must be >= 1)", c.Backoff.Multiplier)
	}
	if c.Backoff.Jitter < 0 || c.Backoff.Jitter >= 1 {
		bad("backoff jitter %v (must be in [0,1))", c.Backoff.Jitter)
	}
	return errors.Join(errs...)
}
