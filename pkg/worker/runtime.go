package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Handler handles one event and returns the events it produced. The runtime,
// not the handler, publishes the outputs and acknowledges the input: the
// input is acked only after every output's publish was acknowledged by the
// stream. Return an error wrapping ErrPermanent to end the run `failed`; any
// other error is retried with backoff. Handlers must be idempotent: a
// redelivered event may be handled again, and its outputs (with their
// deterministic ids) are then de-duplicated by the server.
type Handler func(ctx context.Context, in events.Envelope) ([]events.Envelope, error)

// Runtime consumes one durable consumer with one Handler.
type Runtime struct {
	js      jetstream.JetStream
	cfg     Config
	handler Handler
	log     *slog.Logger
	metrics *Metrics
	now     events.Clock
	decoder events.Decoder
	ready   atomic.Bool
}

// Option customises a Runtime.
type Option func(*Runtime)

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(r *Runtime) { r.log = l } }

// WithMetrics sets the metrics to update (default: none recorded).
func WithMetrics(m *Metrics) Option { return func(r *Runtime) { r.metrics = m } }

// WithClock sets the clock used to stamp produced events.
func WithClock(now events.Clock) Option { return func(r *Runtime) { r.now = now } }

// New validates cfg and returns a Runtime. It returns an error wrapping
// ErrInvalidConfig for bad configuration.
func New(js jetstream.JetStream, cfg Config, h Handler, opts ...Option) (*Runtime, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if js == nil || h == nil {
		return nil, fmt.Errorf("%w: jetstream and handler are required", ErrInvalidConfig)
	}
	r := &Runtime{js: js, cfg: cfg, handler: h, log: slog.Default(), now: time.Now,
		decoder: events.Decoder{MaxBytes: cfg.MaxEventBytes}}
	for _, o := range opts {
		o(r)
	}
	r.log = r.log.With("service", cfg.Service)
	return r, nil
}

// Ready reports nil once Run is consuming.
func (r *Runtime) Ready() error {
	if !r.ready.Load() {
		return errors.New("not consuming")
	}
	return nil
}

// Run consumes until ctx is done, then drains: it stops fetching, waits up
// to DrainTimeout for in-flight handlers to finish (publishing and acking
// their results), cancels the rest (their messages are nak'ed and
// redelivered) and returns nil. It returns an error wrapping
// ErrConsumerMissing when the consumer does not exist, or when the
// connection is closed.
func (r *Runtime) Run(ctx context.Context) error {
	cons, err := r.consumer(ctx)
	if err != nil {
		return err
	}
	// Handlers outlive ctx so that a shutdown lets them finish; they are
	// cancelled only when the drain timeout passes.
	handlerCtx, cancelHandlers := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelHandlers()
	slots := make(chan struct{}, r.cfg.Concurrency)
	var wg sync.WaitGroup
	r.ready.Store(true)
	defer r.ready.Store(false)
	r.log.Info("consuming", "stream", r.cfg.Stream, "consumer", r.cfg.Consumer, "concurrency", r.cfg.Concurrency)

	var runErr error
	failures := 0
loop:
	for {
		// Wait for one free slot, then take every other free one: one
		// pull request asks for as many messages as can be handled now.
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			break loop
		}
		n := 1
	more:
		for n < r.cfg.Concurrency {
			select {
			case slots <- struct{}{}:
				n++
			default:
				break more
			}
		}
		got, err := r.fetch(ctx, cons, n, func(msg jetstream.Msg) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				r.process(handlerCtx, msg)
			}()
		})
		for range n - got {
			<-slots
		}
		if err == nil {
			failures = 0
			continue
		}
		switch {
		case ctx.Err() != nil:
			break loop
		case errors.Is(err, nats.ErrConnectionClosed):
			runErr = fmt.Errorf("could not fetch from %s/%s: %w", r.cfg.Stream, r.cfg.Consumer, err)
			break loop
		default:
			// A pull request lost with its server (no heartbeat), a
			// consumer leader being elected, a reconnect: ask again,
			// backing off while it keeps failing.
			failures++
			delay := min(time.Duration(failures)*100*time.Millisecond, 2*time.Second)
			r.log.Warn("fetch failed; retrying", "err", err, "retry_in", delay)
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				break loop
			}
		}
	}

	r.log.Info("draining: no new events; waiting for in-flight handlers", "timeout", r.cfg.DrainTimeout.String())
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(r.cfg.DrainTimeout):
		r.log.Warn("drain timeout: cancelling in-flight handlers", "timeout", r.cfg.DrainTimeout.String())
		cancelHandlers()
		<-done
	}
	r.log.Info("drained")
	return runErr
}

// fetchWait bounds one pull request, so that the loop notices a shutdown
// on an idle consumer; fetchHeartbeat is the server's idle heartbeat on
// it: a request parked on a server that died is abandoned after two missed
// heartbeats instead of at its expiry.
const (
	fetchWait      = 10 * time.Second
	fetchHeartbeat = 2 * time.Second
)

// fetch asks for up to n messages with one pull request and hands each to
// dispatch as it arrives. It returns how many it dispatched and the pull
// request's error, nil when it merely expired.
func (r *Runtime) fetch(ctx context.Context, cons jetstream.Consumer, n int, dispatch func(jetstream.Msg)) (int, error) {
	fctx, cancel := context.WithTimeout(ctx, fetchWait)
	defer cancel()
	batch, err := cons.Fetch(n, jetstream.FetchContext(fctx), jetstream.FetchHeartbeat(fetchHeartbeat))
	if err != nil {
		return 0, err
	}
	got := 0
	for msg := range batch.Messages() {
		got++
		dispatch(msg)
	}
	err = batch.Error()
	if ctx.Err() == nil && (errors.Is(err, nats.ErrTimeout) || errors.Is(err, context.DeadlineExceeded)) {
		err = nil
	}
	return got, err
}

// consumer looks the durable consumer up, retrying while the cluster
// cannot answer (leaders being elected). It returns an error wrapping
// ErrConsumerMissing when the consumer or stream does not exist.
func (r *Runtime) consumer(ctx context.Context) (jetstream.Consumer, error) {
	for failures := 1; ; failures++ {
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		cons, err := r.js.Consumer(lctx, r.cfg.Stream, r.cfg.Consumer)
		cancel()
		switch {
		case err == nil:
			return cons, nil
		case errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrStreamNotFound):
			return nil, fmt.Errorf("%w: %s/%s: %w", ErrConsumerMissing, r.cfg.Stream, r.cfg.Consumer, err)
		case ctx.Err() != nil || !bus.IsTransient(err):
			return nil, fmt.Errorf("could not look up consumer %s/%s: %w", r.cfg.Stream, r.cfg.Consumer, err)
		}
		delay := min(time.Duration(failures)*200*time.Millisecond, 5*time.Second)
		r.log.Warn("could not look up consumer; retrying", "err", err, "retry_in", delay)
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil, fmt.Errorf("could not look up consumer %s/%s: %w", r.cfg.Stream, r.cfg.Consumer, err)
		}
	}
}

// process handles one message from delivery to ack, nak or term.
func (r *Runtime) process(ctx context.Context, msg jetstream.Msg) {
	deliveries := uint64(1)
	var streamSeq uint64
	if md, err := msg.Metadata(); err == nil {
		deliveries, streamSeq = md.NumDelivered, md.Sequence.Stream
	}
	if deliveries > 1 && r.metrics != nil {
		r.metrics.redeliveries.WithLabelValues(r.cfg.Service).Inc()
	}
	d := delivery{msg: msg, deliveries: deliveries, streamSeq: streamSeq}
	log := r.log.With("subject", msg.Subject(), "delivery", deliveries)

	env, err := r.decoder.Decode(msg.Subject(), msg.Data())
	if err != nil {
		r.rejectMalformed(ctx, log, d, err)
		return
	}
	kind, _ := env.Kind()
	d.env, d.kind = env, kind
	log = log.With("run_id", env.RunID(), "event", string(kind), "attempt", env.Attempt)

	if r.cfg.Guard != nil {
		if err := r.cfg.Guard.Admit(ctx, env); err != nil {
			if errors.Is(err, events.ErrConflict) {
				r.refuse(ctx, log, d, err)
				return
			}
			if deliveries >= uint64(r.cfg.MaxDeliver) {
				r.deadLetter(ctx, log, d, fmt.Sprintf("gave up after %d deliveries: could not check the event belongs to its run: %v", deliveries, err))
				return
			}
			r.retryLater(log, d, fmt.Errorf("could not check the event belongs to its run: %w", err))
			return
		}
	}

	if deliveries > uint64(r.cfg.MaxDeliver) {
		r.deadLetter(ctx, log, d, fmt.Sprintf("delivered %d times (max %d) without completing: the handler crashed or timed out", deliveries, r.cfg.MaxDeliver))
		return
	}

	start := time.Now()
	hctx := withSteps(ContextWithDelivery(ctx, Delivery{StreamSeq: streamSeq, Deliveries: deliveries, Header: msg.Headers()}), r.metrics, r.cfg.Service)
	hctx, hooks := WithPublishHooks(hctx)
	outs, err := r.handle(hctx, msg, env)
	if err == nil {
		done := Step(hctx, StepPublish)
		err = r.publishThen(ctx, outs, hooks)
		done()
	}
	if r.metrics != nil {
		r.metrics.observeDuration(r.cfg.Service, string(kind), time.Since(start), traceOf(outs, r.traceParentOf(env)))
	}
	switch {
	case err == nil:
		if aerr := r.ack(ctx, msg); aerr != nil {
			// The outputs are published (and de-duplicated if we run again):
			// a lost ack only costs a redelivery.
			log.Warn("ack failed; the event will be redelivered and de-duplicated", "err", aerr)
		}
		r.count(kind, outcomeOK)
		log.Debug("handled", "outputs", len(outs), "duration", time.Since(start))
	case ctx.Err() != nil:
		// Shutdown cancelled the handler: give the message back at once.
		_ = msg.Nak()
		log.Warn("handler cancelled by shutdown; message returned for redelivery", "err", err)
	case IsPermanent(err) && !r.cfg.EndRunOnFailure:
		r.deadLetter(ctx, log, d, fmt.Sprintf("permanent failure: %v", err))
	case IsPermanent(err):
		r.fail(ctx, log, d, err)
	case deliveries >= uint64(r.cfg.MaxDeliver):
		r.deadLetter(ctx, log, d, fmt.Sprintf("gave up after %d deliveries: %v", deliveries, err))
	default:
		delay := r.cfg.Backoff.delay(deliveries)
		var ra RetryAfter
		if errors.As(err, &ra) && ra.RetryAfter() > delay {
			delay = min(ra.RetryAfter(), 10*time.Minute)
		}
		if nerr := msg.NakWithDelay(delay); nerr != nil {
			log.Warn("nak failed; the event will be redelivered after the ack wait", "err", nerr)
		}
		r.count(kind, outcomeTransient)
		r.failure(outcomeTransient)
		log.Warn("transient failure; will retry", "err", err, "retry_in", delay)
	}
}

type delivery struct {
	msg        jetstream.Msg
	deliveries uint64
	streamSeq  uint64
	env        events.Envelope
	kind       events.Kind
}

// handle runs the handler with a timeout, a panic guard and InProgress
// keep-alives.
func (r *Runtime) handle(ctx context.Context, msg jetstream.Msg, env events.Envelope) (outs []events.Envelope, err error) {
	hctx, cancel := context.WithTimeout(ctx, r.cfg.HandlerTimeout)
	defer cancel()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		t := time.NewTicker(r.cfg.AckWait / 3)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				_ = msg.InProgress()
			case <-stop:
				return
			}
		}
	}()
	if r.metrics != nil {
		g := r.metrics.inflight.WithLabelValues(r.cfg.Service)
		g.Inc()
		defer g.Dec()
	}
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("handler panic", "panic", p, "stack", string(debug.Stack()))
			outs, err = nil, Permanentf("%s handler panicked: %v", r.cfg.Service, p)
		}
	}()
	outs, err = r.handler(hctx, env)
	if err == nil && hctx.Err() != nil {
		err = fmt.Errorf("handler exceeded %s: %w", r.cfg.HandlerTimeout, hctx.Err())
	}
	return outs, err
}

// publish publishes every output with its deterministic message id and
// waits for each acknowledgement. An output that is too large or invalid is
// a permanent failure.
func (r *Runtime) publish(ctx context.Context, outs []events.Envelope) error {
	return r.publishThen(ctx, outs, nil)
}

// publishThen is publish that runs the handler's OnPublished hooks (nil:
// none) for each output once it is stored.
func (r *Runtime) publishThen(ctx context.Context, outs []events.Envelope, hooks *PublishHooks) error {
	for _, out := range outs {
		m, err := EventMsg(out, r.cfg.MaxEventBytes, r.cfg.MsgIDs)
		if err != nil {
			return Permanent(err)
		}
		ack, err := r.publishMsg(ctx, m)
		if err != nil {
			return fmt.Errorf("could not publish %s: %w", out.ID, err)
		}
		if hooks != nil {
			if err := hooks.Published(ctx, out.ID, ack.Sequence); err != nil {
				return err
			}
		}
	}
	return nil
}

// publishRetryFor bounds how long a publish that timed out (its stream
// leader died, or is being elected) is retried in place before the handler
// fails transiently and the input is redelivered.
const publishRetryFor = 45 * time.Second

// publishMsg publishes m and waits for the stream's acknowledgement. A
// publish that times out or finds no stream leader is sent again with the
// same message id — the stream's duplicate window makes that safe: if the
// first one was stored after all, the second is dropped as a duplicate.
// The acknowledgement of a duplicate carries the sequence of the message
// stored first.
func (r *Runtime) publishMsg(ctx context.Context, m *nats.Msg) (*jetstream.PubAck, error) {
	var ack *jetstream.PubAck
	err := r.retryTransient(ctx, "publish "+m.Subject, func(ctx context.Context) error {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		var err error
		ack, err = r.js.PublishMsg(pctx, m)
		return err
	})
	return ack, err
}

// ack acknowledges msg and waits for the server to confirm, retrying a
// confirmation that did not come (an ack is idempotent). A lost ack only
// costs a redelivery, which the outputs' ids de-duplicate.
func (r *Runtime) ack(ctx context.Context, msg jetstream.Msg) error {
	return r.retryTransient(ctx, "ack", func(ctx context.Context) error {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return msg.DoubleAck(actx)
	})
}

// retryTransient calls op until it succeeds, fails with an error that is
// not transient (bus.IsTransient), ctx ends or publishRetryFor passes.
func (r *Runtime) retryTransient(ctx context.Context, what string, op func(context.Context) error) error {
	deadline := time.Now().Add(publishRetryFor)
	for tries := 1; ; tries++ {
		err := op(ctx)
		if err == nil || !bus.IsTransient(err) || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		delay := min(time.Duration(tries)*100*time.Millisecond, time.Second)
		r.log.Debug(what+" failed; retrying", "err", err, "try", tries, "retry_in", delay)
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return err
		}
	}
}

// fail ends the run of a permanently failed event and terminates the message.
func (r *Runtime) fail(ctx context.Context, log *slog.Logger, d delivery, cause error) {
	reason := fmt.Sprintf("%s: %v", r.cfg.Service, cause)
	if err := r.endRun(ctx, d, d.env.RunID(), reason, events.UsageOfError(cause)); err != nil {
		r.retryLater(log, d, fmt.Errorf("could not publish failed event: %w", err))
		return
	}
	_ = d.msg.Term()
	r.count(d.kind, outcomePermanent)
	r.failure(outcomePermanent)
	log.Error("permanent failure; run ended", "err", cause)
}

// rejectMalformed handles an event that cannot be decoded: it ends the run
// when a run id can be read from the subject, and dead-letters it otherwise.
// A malformed decision, or a malformed request on a claimed run id, is
// refused instead: agents publish those on any run's subject.
func (r *Runtime) rejectMalformed(ctx context.Context, log *slog.Logger, d delivery, cause error) {
	var de *events.DecodeError
	runID := ""
	if errors.As(cause, &de) {
		runID = de.RunID
	}
	subjectRun, kind, subjectErr := events.ParseSubject(d.msg.Subject())
	if subjectErr == nil && kind == events.KindApprovalDecided {
		// Decisions are published by agents, on any run's subject: one
		// that does not decode decides nothing and must not end the run.
		r.refuse(ctx, log, d, fmt.Errorf("%w: a malformed decision on the subject of run %s decides nothing: %w", events.ErrConflict, subjectRun, cause))
		return
	}
	if runID != "" && r.cfg.Guard != nil {
		if subjectErr == nil && kind == events.KindRequested {
			claimed, err := r.cfg.Guard.Claimed(ctx, runID, d.streamSeq)
			if err != nil {
				r.retryLater(log, d, fmt.Errorf("could not check whether run %s has a request: %w", runID, err))
				return
			}
			if claimed {
				// Someone else's run: a malformed second request must not end it.
				r.refuse(ctx, log, d, fmt.Errorf("%w: run %s already has a request; this one is malformed: %w", events.ErrConflict, runID, cause))
				return
			}
		}
	}
	if runID == "" || !r.cfg.EndRunOnFailure {
		if err := r.publishDeadLetter(ctx, d, cause.Error()); err != nil {
			r.retryLater(log, d, err)
			return
		}
		_ = d.msg.Term()
		r.count(d.kind, outcomeMalformed)
		r.failure(outcomeMalformed)
		log.Error("malformed event dead-lettered", "err", cause)
		return
	}
	if err := r.endRun(ctx, d, runID, fmt.Sprintf("%s: rejected malformed event: %v", r.cfg.Service, cause), nil); err != nil {
		r.retryLater(log, d, err)
		return
	}
	_ = d.msg.Term()
	r.count(d.kind, outcomeMalformed)
	r.failure(outcomeMalformed)
	log.Error("malformed event; run ended", "run_id", runID, "err", cause)
}

// refuse dead-letters an event that does not belong to its run, without
// ending or changing the run, and terminates the message.
func (r *Runtime) refuse(ctx context.Context, log *slog.Logger, d delivery, cause error) {
	if err := r.publishDeadLetter(ctx, d, "refused: "+cause.Error()); err != nil {
		r.retryLater(log, d, err)
		return
	}
	_ = d.msg.Term()
	r.count(d.kind, outcomeRefused)
	r.failure(outcomeRefused)
	log.Warn("event refused: it does not belong to its run", "err", cause)
}

// deadLetter copies the message to the dead-letter subject with the reason,
// ends the run and terminates the message.
func (r *Runtime) deadLetter(ctx context.Context, log *slog.Logger, d delivery, reason string) {
	if err := r.publishDeadLetter(ctx, d, reason); err != nil {
		r.retryLater(log, d, err)
		return
	}
	if r.cfg.EndRunOnFailure {
		if err := r.endRun(ctx, d, d.env.RunID(), fmt.Sprintf("%s: %s", r.cfg.Service, reason), nil); err != nil {
			r.retryLater(log, d, err)
			return
		}
	}
	_ = d.msg.Term()
	r.count(d.kind, outcomeDeadLetter)
	r.failure(outcomeDeadLetter)
	log.Error("dead-lettered", "reason", reason)
}

func (r *Runtime) publishDeadLetter(ctx context.Context, d delivery, reason string) error {
	m := nats.NewMsg(events.DeadLetterSubject(r.cfg.Service))
	m.Data = d.msg.Data()
	m.Header.Set(events.HeaderMsgID, "dlq."+r.cfg.Service+"."+r.cfg.Stream+"."+strconv.FormatUint(d.streamSeq, 10))
	m.Header.Set(events.HeaderDeadLetterReason, truncate(r.redact(reason), 4096))
	m.Header.Set(events.HeaderDeadLetterSubject, d.msg.Subject())
	m.Header.Set(events.HeaderDeadLetterSequence, strconv.FormatUint(d.streamSeq, 10))
	m.Header.Set(events.HeaderDeadLetterDeliveries, strconv.FormatUint(d.deliveries, 10))
	m.Header.Set(events.HeaderDeadLetterService, r.cfg.Service)
	if _, err := r.publishMsg(ctx, m); err != nil {
		return fmt.Errorf("could not dead-letter message: %w", err)
	}
	return nil
}

// endRun publishes the `failed` event of a run; usage is the failed
// phase's own model usage (see events.WithUsage), added to the run's.
func (r *Runtime) endRun(ctx context.Context, d delivery, runID, reason string, usage []events.ModelUsage) error {
	if !r.cfg.EndRunOnFailure || runID == "" {
		return nil
	}
	attempt := max(d.env.Attempt, 1)
	// Redacted before it is cut: a secret cut at the limit would no longer
	// be recognised.
	v := events.FailedVerdict(d.env, r.cfg.Service, truncate(r.redact(reason), 8192), attempt)
	if len(usage) > 0 {
		v.Run.Usage = events.MergeUsage(v.Run.Usage, usage...)
		v.Usage, v.UsageTotal = usage, events.UsageTotalOf(v.Run)
	}
	if r.cfg.CompleteFailure != nil {
		r.cfg.CompleteFailure(runID, attempt, &v)
	}
	failed, err := events.FailedWith(d.env, runID, attempt, events.SourceFor(r.cfg.Service), r.now, v)
	if err != nil {
		return err
	}
	failed.TraceParent = r.traceParentOf(d.env)
	return r.publish(ctx, []events.Envelope{failed})
}

// traceParentOf is the trace context the runtime hands on for in: its
// own, or what Config.FailureTraceParent makes of it.
func (r *Runtime) traceParentOf(in events.Envelope) string {
	if r.cfg.FailureTraceParent == nil {
		return in.TraceParent
	}
	return r.cfg.FailureTraceParent(in)
}

// retryLater naks a message whose failure handling itself failed (for
// instance the failed event could not be published), so nothing is lost.
func (r *Runtime) retryLater(log *slog.Logger, d delivery, err error) {
	delay := r.cfg.Backoff.delay(d.deliveries)
	_ = d.msg.NakWithDelay(delay)
	r.failure(outcomeTransient)
	log.Warn("could not finish failure handling; will retry", "err", err, "retry_in", delay)
}

func (r *Runtime) count(kind events.Kind, outcome string) {
	if r.metrics == nil {
		return
	}
	k := string(kind)
	if k == "" {
		k = "unknown"
	}
	r.metrics.handled.WithLabelValues(r.cfg.Service, k, outcome).Inc()
}

func (r *Runtime) failure(class string) {
	if r.metrics != nil {
		r.metrics.failures.WithLabelValues(r.cfg.Service, class).Inc()
	}
}

// redact is Config.Redact, or s as it is without one.
func (r *Runtime) redact(s string) string {
	if r.cfg.Redact == nil {
		return s
	}
	return r.cfg.Redact(s)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…(truncated)"
}
