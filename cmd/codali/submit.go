package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/runclaim"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

type submitOptions struct {
	conn             bus.ConnectOptions
	repo, url, ref   string
	wait, asJSON     bool
	timeout          time.Duration
	maxRetries       int
	budget           events.Budget
	project          string
	requireIntegrity string
	fast             bool
}

func cmdSubmit(ctx context.Context, c *cli, args []string) int {
	var o submitOptions
	fs := c.newFlags("submit", `submit (--repo PATH | --url URL [--ref REF]) [--wait] [--json] [--timeout D] [--max-retries N] [--project P] [--fast] [--budget-tokens N] [--budget-cost X] [--require-integrity green|amber] "request" (or - to read it from stdin)`)
	o.conn.Bind(fs, c.getenv)
	fs.StringVar(&o.repo, "repo", "", "path of the repository to change")
	fs.StringVar(&o.url, "url", "", "git URL of the repository to change (instead of --repo)")
	fs.StringVar(&o.ref, "ref", "", "branch, tag or commit to check out with --url")
	fs.BoolVar(&o.wait, "wait", false, "follow the run and exit 0 on passed, 1 on failed")
	fs.BoolVar(&o.asJSON, "json", false, "print the terminal event (with --wait) or the run id as JSON")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Minute, "with --wait: give up after this long (exit 2)")
	fs.IntVar(&o.maxRetries, "max-retries", -1, "critic→architect retries for this run (0: none; default: the configured limits.maxRetries)")
	fs.IntVar(&o.budget.Tokens, "budget-tokens", 0, "model token budget of this run (options.budget.tokens; default: limits.maxRunTokens)")
	fs.Float64Var(&o.budget.Cost, "budget-cost", 0, "model cost budget of this run (options.budget.cost; default: limits.maxRunCost)")
	fs.StringVar(&o.project, "project", "", "project id whose state the run uses (default: derived from the repo; another id must be configured for this repo under projects)")
	fs.BoolVar(&o.fast, "fast", false, "ask for the fast path: a one-step plan with the repository's default checks, without the architect's model (the request must name one existing file)")
	fs.StringVar(&o.requireIntegrity, "require-integrity", "", "with --wait: exit 1 unless the run passed with at least this integrity (green or amber)")
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	req, err := c.requestText(pos)
	if err != nil {
		c.errorf("submit: %v", err)
		return exitUsage
	}
	data, err := o.requested(req)
	if err != nil {
		c.errorf("submit: %v", err)
		return exitUsage
	}
	if o.requireIntegrity != "" && !o.wait {
		c.errorf("submit: --require-integrity needs --wait")
		return exitUsage
	}
	if o.requireIntegrity != "" && o.requireIntegrity != events.IntegrityGreen && o.requireIntegrity != events.IntegrityAmber {
		c.errorf("submit: --require-integrity must be green or amber")
		return exitUsage
	}
	if o.timeout <= 0 {
		c.errorf("submit: --timeout must be positive")
		return exitUsage
	}
	if err := o.conn.Validate(); err != nil {
		c.errorf("submit: %v", err)
		return exitUsage
	}
	if data.Repo.Path != "" {
		if fi, err := os.Stat(data.Repo.Path); err != nil || !fi.IsDir() {
			fmt.Fprintf(c.stderr, "codali: submit: warning: %s is not a directory here; the workers must be able to read it\n", data.Repo.Path)
		}
	}
	return c.submit(ctx, o, data)
}

// requestText joins the positional arguments, or reads stdin for "-".
func (c *cli) requestText(pos []string) (string, error) {
	if len(pos) == 1 && pos[0] == "-" {
		b, err := io.ReadAll(io.LimitReader(c.stdin, events.MaxRequestBytes+1))
		if err != nil {
			return "", fmt.Errorf("could not read the request from stdin: %w", err)
		}
		return string(b), nil
	}
	if len(pos) == 0 {
		return "", errors.New(`the request text is required, e.g. codali submit --repo . "add a --verbose flag"`)
	}
	return strings.Join(pos, " "), nil
}

func (o submitOptions) requested(req string) (events.Requested, error) {
	d := events.Requested{Request: req, Options: events.RunOptions{Project: o.project, Fast: o.fast}}
	if o.budget != (events.Budget{}) {
		b := o.budget
		d.Options.Budget = &b
	}
	if o.maxRetries >= 0 {
		d.Options.MaxRetries = &o.maxRetries
	}
	if o.repo != "" {
		abs, err := filepath.Abs(o.repo)
		if err != nil {
			return d, fmt.Errorf("--repo: %w", err)
		}
		d.Repo.Path = abs
	}
	d.Repo.URL, d.Repo.Ref = o.url, o.ref
	if err := d.Validate(); err != nil {
		return d, err
	}
	return d, nil
}

func (c *cli) submit(ctx context.Context, o submitOptions, data events.Requested) int {
	cl, err := c.connect(o.conn)
	if err != nil {
		c.errorf("submit: %v", err)
		return exitUsage // unreachable: not a verdict
	}
	defer cl.close()
	runID, err := events.NewRunID(time.Now(), nil)
	if err != nil {
		c.errorf("submit: %v", err)
		return exitFailure
	}
	env, err := events.New(runID, events.KindRequested, 1, "codali/cli", time.Now(), data)
	if err != nil {
		c.errorf("submit: %v", err)
		return exitFailure
	}
	var sub *subscription
	if o.wait {
		if sub, err = subscribeRun(ctx, cl, runID); err != nil {
			c.errorf("submit: %v", err)
			return exitFailure
		}
		defer sub.close()
		sub.digest = data.Digest()
	}
	if err := publishRequested(ctx, cl, env); err != nil {
		c.errorf("submit: %v", err)
		return exitFailure
	}
	if !o.wait {
		if o.asJSON {
			_ = json.NewEncoder(c.stdout).Encode(map[string]string{"run_id": runID})
		} else {
			fmt.Fprintln(c.stdout, runID)
		}
		return exitOK
	}
	progress := c.stdout
	if o.asJSON {
		progress = c.stderr
	}
	fmt.Fprintf(progress, "run %s submitted (repo %s)\n", runID, data.Repo.String())
	f := newFollower(progress, c.stdoutTTY && !o.asJSON)
	term, _, err := sub.wait(ctx, f, o.timeout, nil)
	if err != nil {
		c.errorf("submit: run %s: %v; the run goes on: follow it with `codali watch %s`", runID, err, runID)
		return exitUsage
	}
	return c.finish(term, o.asJSON, o.requireIntegrity)
}

// publishRequested checks that a librarian consumes requests (otherwise
// the interest-retention stream would drop the event) and publishes it.
func publishRequested(ctx context.Context, cl *client, env events.Envelope) error {
	var err error
	for try := 0; try < 3; try++ { // the consumer's leader may be being elected
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err = cl.js.Consumer(lctx, events.StreamWork, events.ServiceLibrarian)
		cancel()
		if !bus.IsTransient(err) || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		if errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
			return fmt.Errorf("no librarian consumer on stream %s: start the pipeline first (codali up)", events.StreamWork)
		}
		return fmt.Errorf("could not reach JetStream: %w", err)
	}
	m, err := requestMsg(env)
	if err != nil {
		return err
	}
	// A run id takes one request: the server refuses this one if the
	// run's subject already holds a request. During a leader election a
	// publish can time out although the request was stored; it is sent
	// again with the same message id, and a refusal after such an attempt
	// is checked against what the stream holds: our own request is success.
	uncertain := false
	return retryPublish(ctx, env.ID, func(ctx context.Context) error {
		err := publishRequestOnce(ctx, cl, m, env, uncertain)
		uncertain = uncertain || bus.IsTransient(err)
		return err
	})
}

// retryPublish makes attempts at publishing the event id (each bounded by
// publishAttemptTimeout, all by publishTimeout) until one succeeds or
// fails for good.
func retryPublish(ctx context.Context, id string, attempt func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	return bus.Retry(ctx, discardLog, "publish "+id, bus.RetryPolicy{Initial: 250 * time.Millisecond, Max: 2 * time.Second,
		Permanent: func(err error) bool { return !bus.IsTransient(err) }}, nil, func(ctx context.Context) error {
		actx, cancel := context.WithTimeout(ctx, publishAttemptTimeout)
		defer cancel()
		return attempt(actx)
	})
}

// requestMsg is the message of the request env, with its message id.
func requestMsg(env events.Envelope) (*nats.Msg, error) {
	raw, err := env.Encode(events.DefaultMaxEventBytes)
	if err != nil {
		return nil, err
	}
	m := nats.NewMsg(events.KindRequested.Subject(env.RunID()))
	m.Data = raw
	m.Header.Set(events.HeaderMsgID, env.ID)
	return m, nil
}

// publishRequestOnce is one attempt at publishing the request m of env.
// uncertain says an earlier attempt failed without an answer, so the
// request may already be stored.
func publishRequestOnce(ctx context.Context, cl *client, m *nats.Msg, env events.Envelope, uncertain bool) error {
	ack, err := cl.js.PublishMsg(ctx, m, jetstream.WithExpectLastSequencePerSubject(0))
	switch {
	case uncertain && err == nil && ack.Duplicate:
		// Most likely our earlier attempt was stored: the message with
		// this id must hold our request, unless the librarian and the
		// recorder have consumed it already (interest retention).
		return storedRequest(ctx, cl, m, env, ack.Sequence)
	case uncertain && bus.IsWrongLastSequence(err):
		return storedRequest(ctx, cl, m, env, 0)
	case bus.IsWrongLastSequence(err):
		return fmt.Errorf("%w: run %s already has a request; submit again (a new run id)", ErrRunIDTaken, env.RunID())
	case err != nil:
		return fmt.Errorf("could not publish %s: %w", env.ID, err)
	case ack.Duplicate:
		// The server kept an earlier request with this message id.
		return fmt.Errorf("%w: run %s already has a request (duplicate message id %s); submit again (a new run id)", ErrRunIDTaken, env.RunID(), env.ID)
	}
	return nil
}

// storedRequest checks, after a publish whose outcome was unknown was
// refused, that the request the stream holds is ours (stored by the
// earlier attempt): the message at seq when the refusal named it (a
// duplicate; gone means consumed, and then the run's claim must hold our
// request), otherwise the last on the run's subject.
func storedRequest(ctx context.Context, cl *client, m *nats.Msg, env events.Envelope, seq uint64) error {
	same, gone, err := storedIs(ctx, cl, m, env.ID, seq)
	switch {
	case err != nil:
		return fmt.Errorf("could not check the stored request of run %s: %w", env.RunID(), err)
	case gone:
		return claimedRequest(ctx, cl, env)
	case !same:
		return fmt.Errorf("%w: run %s already has another request; submit again (a new run id)", ErrRunIDTaken, env.RunID())
	}
	return nil
}

// claimedRequest checks that the run's claim holds env's request, after
// the message stored under env's id was consumed: anyone who saw the run
// id go by (every agent subscribes to run events) can store another
// request under the same message id before a retry, so a consumed
// message alone does not say whose request it was.
func claimedRequest(ctx context.Context, cl *client, env events.Envelope) error {
	claims, err := runclaim.Open(ctx, cl.js)
	if err != nil {
		return fmt.Errorf("could not check the claim of run %s: %w", env.RunID(), err)
	}
	c, ok, err := claims.Get(ctx, env.RunID())
	if err != nil {
		return fmt.Errorf("could not check the claim of run %s: %w", env.RunID(), err)
	}
	if !ok {
		return fmt.Errorf("%w: run %s: a request under its message id was consumed, but no claim says whose", ErrUnconfirmed, env.RunID())
	}
	req, _ := events.RequestOf(env)
	if c.Digest != req.Digest() || c.Source != env.Source || !c.Time.Equal(env.Time) {
		return fmt.Errorf("%w: run %s already has another request; submit again (a new run id)", ErrRunIDTaken, env.RunID())
	}
	return nil
}

// ErrUnconfirmed: a request may have been stored, but whose it was cannot
// be told.
var ErrUnconfirmed = errors.New("request not confirmed")

// ErrRunIDTaken: a request was published for a run id that already has one.
var ErrRunIDTaken = errors.New("run id already taken")

// publishEvent publishes an event with its deterministic message id.
func publishEvent(ctx context.Context, cl *client, env events.Envelope) error {
	return publishEventAs(ctx, cl, env, env.ID)
}

// publishEventAs publishes an event with the message id id: its own id
// for an agent's event, the keyed one (msgid.Key.For) for an event of a
// kind only services and the operator publish, which agents cannot take
// first.
func publishEventAs(ctx context.Context, cl *client, env events.Envelope, id string) error {
	raw, err := env.Encode(events.DefaultMaxEventBytes)
	if err != nil {
		return err
	}
	subject, err := env.NATSSubject()
	if err != nil {
		return err
	}
	m := nats.NewMsg(subject)
	m.Data = raw
	m.Header.Set(events.HeaderMsgID, id)
	// During a leader election a publish can time out although the event
	// was stored; the same message id makes sending it again safe (the
	// stream drops the duplicate), so a timed-out publish is retried.
	// A duplicate acknowledgement is ours only when the stored message is
	// this one, or is gone after an attempt without an answer (consumed):
	// otherwise another event with this id (an earlier decision on the
	// same call, malformed or not) took the id, and this one was dropped.
	uncertain := false
	err = retryPublish(ctx, env.ID, func(ctx context.Context) error {
		ack, err := cl.js.PublishMsg(ctx, m)
		if err != nil {
			uncertain = true
			return err
		}
		if !ack.Duplicate {
			return nil
		}
		same, gone, err := storedIs(ctx, cl, m, id, ack.Sequence)
		switch {
		case err != nil:
			return err
		case same || (gone && uncertain):
			return nil
		}
		return fmt.Errorf("%w: the stream already took an event with the id %s (message %d), so the server dropped this one; "+
			"it forgets ids after its duplicate window (10 minutes)", ErrDuplicateEvent, env.ID, ack.Sequence)
	})
	if err != nil {
		return fmt.Errorf("could not publish %s: %w", env.ID, err)
	}
	return nil
}

// ErrDuplicateEvent: the server dropped an event because another one with
// the same id was published within its duplicate window.
var ErrDuplicateEvent = errors.New("another event has this id")

// storedIs says whether the message the stream holds at seq (or, with seq
// 0, the last one on m's subject) is m with the id, or is gone (consumed).
func storedIs(ctx context.Context, cl *client, m *nats.Msg, id string, seq uint64) (same, gone bool, err error) {
	s, err := cl.js.Stream(ctx, events.StreamWork)
	if err != nil {
		return false, false, fmt.Errorf("could not read the stored event %s: %w", id, err)
	}
	var stored *jetstream.RawStreamMsg
	if seq > 0 {
		stored, err = s.GetMsg(ctx, seq)
	} else {
		stored, err = s.GetLastMsgForSubject(ctx, m.Subject)
	}
	switch {
	case seq > 0 && errors.Is(err, jetstream.ErrMsgNotFound):
		return false, true, nil
	case err != nil:
		return false, false, fmt.Errorf("could not read the stored event %s: %w", id, err)
	}
	return stored.Subject == m.Subject && bytes.Equal(stored.Data, m.Data) && stored.Header.Get(events.HeaderMsgID) == id, false, nil
}

// publishAttemptTimeout bounds one publish attempt; publishTimeout bounds
// them all.
const (
	publishAttemptTimeout = 5 * time.Second
	publishTimeout        = 60 * time.Second
)

// discardLog drops the retry log: the CLI reports the final error.
var discardLog = slog.New(slog.DiscardHandler)
