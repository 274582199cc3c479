package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/progress"
	"github.com/nats-io/nats.go"
)

// errTimeout: the run did not end within --timeout.
var errTimeout = errors.New("timed out waiting for the run to end")

// follower prints a run's progress: one line per event with the phase,
// attempt, time since the run started and time the phase took; on a
// terminal it also keeps a live line showing what is running now.
type follower struct {
	w     io.Writer
	live  bool
	start time.Time
	last  time.Time
	phase string
	// lines, when set, receives every event and progress message as a
	// JSON line (watch --json).
	lines io.Writer
	// act is the activity running now and tail its latest output (live
	// progress); spin turns the spinner.
	act, tail string
	spin      int
}

// subscription is a run's live event and progress feed, opened before
// anything that could produce the events.
type subscription struct {
	subs []*nats.Subscription
	ch   chan *nats.Msg
	// digest, when set, is the digest of the run's request: events of the
	// run's subjects that carry another request (someone publishing on
	// this run's subjects) are ignored, never taken as the run's end.
	digest string
}

func subscribeRun(ctx context.Context, cl *client, runID string) (*subscription, error) {
	s := &subscription{ch: make(chan *nats.Msg, 4096)}
	for _, subject := range []string{events.RunSubjects(runID), progress.RunSubjects(runID)} {
		sub, err := cl.nc.ChanSubscribe(subject, s.ch)
		if err != nil {
			s.close()
			return nil, fmt.Errorf("could not subscribe to run %s: %w", runID, err)
		}
		s.subs = append(s.subs, sub)
	}
	if err := flushThrough(ctx, cl.nc); err != nil {
		s.close()
		return nil, fmt.Errorf("could not subscribe to run %s: %w", runID, err)
	}
	return s, nil
}

// flushWait bounds how long flushThrough waits for a lost server to be
// replaced: a cluster elects new leaders within seconds, and a client
// reconnects to another server within its reconnect wait.
const flushWait = time.Minute

// flushThrough makes sure the server has the connection's subscriptions.
// A server that dies during the flush makes nats.go report the
// connection closed although it is reconnecting (and it restores the
// subscriptions on the server it reconnects to): the flush is tried
// again until it succeeds, the connection is closed for good, or
// flushWait or ctx ends.
func flushThrough(ctx context.Context, nc *nats.Conn) error {
	ctx, cancel := context.WithTimeout(ctx, flushWait)
	defer cancel()
	for {
		fctx, stop := context.WithTimeout(ctx, 5*time.Second)
		err := nc.FlushWithContext(fctx)
		stop()
		if err == nil || nc.IsClosed() {
			return err
		}
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

func (s *subscription) close() {
	for _, sub := range s.subs {
		_ = sub.Unsubscribe()
	}
}

// errEndedElsewhere: the run's summary shows it ended, but its terminal
// event went by before the subscription started.
var errEndedElsewhere = errors.New("run ended before its events could be followed")

// wait follows the run until its terminal event, ctx ends or timeout
// passes. The terminal event is returned. ended, when not nil, is polled
// every second: a run whose terminal event was published before the
// subscription began is noticed through its summary (errEndedElsewhere,
// with the summary).
func (s *subscription) wait(ctx context.Context, f *follower, timeout time.Duration, ended func() (audit.Summary, bool)) (events.Envelope, audit.Summary, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	for {
		select {
		case <-poll.C:
			if ended == nil {
				continue
			}
			if sum, ok := ended(); ok {
				// Prefer the terminal event if it is already queued.
				for queued := true; queued; {
					select {
					case m := <-s.ch:
						if env, terminal := f.message(m, s.digest); terminal {
							return env, audit.Summary{}, nil
						}
					default:
						queued = false
					}
				}
				f.clear()
				return events.Envelope{}, sum, errEndedElsewhere
			}
		case m := <-s.ch:
			if env, terminal := f.message(m, s.digest); terminal {
				return env, audit.Summary{}, nil
			}
		case <-tick.C:
			f.tick()
		case <-deadline.C:
			f.clear()
			return events.Envelope{}, audit.Summary{}, fmt.Errorf("%w (%s)", errTimeout, timeout)
		case <-ctx.Done():
			f.clear()
			return events.Envelope{}, audit.Summary{}, ctx.Err()
		}
	}
}

func newFollower(w io.Writer, live bool) *follower {
	now := time.Now()
	return &follower{w: w, live: live, start: now, last: now, phase: events.ServiceLibrarian}
}

// nextPhase is the service that works after an event of this kind.
func nextPhase(k events.Kind) string {
	switch k {
	case events.KindRequested:
		return events.ServiceLibrarian
	case events.KindContext, events.KindRetry:
		return events.ServiceArchitect
	case events.KindPlan:
		return events.ServiceBuilder
	case events.KindBuilt:
		return events.ServiceCritic
	}
	return ""
}

// message shows one message of the feed and reports whether it is the
// run's terminal event.
// digest, when set, is the run's request digest: an event carrying
// another request is ignored.
func (f *follower) message(m *nats.Msg, digest string) (events.Envelope, bool) {
	if strings.HasPrefix(m.Subject, progress.SubjectPrefix+".") {
		var p progress.Message
		if err := json.Unmarshal(m.Data, &p); err != nil {
			return events.Envelope{}, false // progress is best effort
		}
		f.progress(p)
		return events.Envelope{}, false
	}
	env, err := events.Decoder{MaxBytes: 8 << 20}.Decode(m.Subject, m.Data)
	if err != nil {
		f.println(fmt.Sprintf("(ignoring an invalid event on %s: %v)", m.Subject, err))
		return events.Envelope{}, false
	}
	if digest != "" {
		if err := events.CheckBelongs(env, digest); err != nil {
			f.println(fmt.Sprintf("(ignoring %s from %s: %v)", env.ID, env.Source, err))
			return events.Envelope{}, false
		}
	}
	f.event(env)
	k, _ := env.Kind()
	return env, k.Terminal()
}

func (f *follower) event(env events.Envelope) {
	f.jsonLine(jsonLine{Kind: "event", Event: &env})
	f.act, f.tail = "", ""
	now := time.Now()
	kind, _ := env.Kind()
	by := strings.TrimPrefix(env.Source, "codali/")
	line := fmt.Sprintf("[%6.1fs] %-10s %-9s attempt %d  (+%.1fs)  %s",
		now.Sub(f.start).Seconds(), by, kind, env.Attempt, now.Sub(f.last).Seconds(), describe(env))
	f.println(line)
	f.last, f.phase = now, nextPhase(kind)
}

func (f *follower) println(s string) {
	f.clear()
	fmt.Fprintln(f.w, s)
}

func (f *follower) tick() {
	if !f.live || f.phase == "" {
		return
	}
	f.spin++
	fmt.Fprint(f.w, "\r\033[K"+f.status())
}

func (f *follower) clear() {
	if f.live {
		fmt.Fprint(f.w, "\r\033[K")
	}
}

// describe summarises an event in one line.
func describe(env events.Envelope) string {
	kind, _ := env.Kind()
	switch kind {
	case events.KindRequested:
		var d events.Requested
		if events.DecodeData(env, &d) == nil {
			return short(d.Request, 80)
		}
	case events.KindContext:
		var d events.ContextData
		if events.DecodeData(env, &d) == nil {
			return d.Summary
		}
	case events.KindPlan:
		var d events.PlanData
		if events.DecodeData(env, &d) == nil {
			line := fmt.Sprintf("%d steps, %d checks: %s", len(d.Plan.Steps), len(d.Plan.Verify), short(d.Plan.Summary, 60))
			switch d.Mode {
			case events.PlanModeFast:
				line = "fast path, " + line
			case events.PlanModeReused:
				line = "same plan to the builder, " + line
			}
			return line
		}
	case events.KindBuilt:
		var d events.BuiltData
		if events.DecodeData(env, &d) == nil {
			blocked := 0
			for _, t := range d.Tools {
				if t.Gate.Blocked {
					blocked++
				}
			}
			return fmt.Sprintf("%d files changed, +%d -%d, %d tool calls (%d blocked)", len(d.Change.Files), d.Change.Added, d.Change.Removed, len(d.Tools), blocked)
		}
	case events.KindRetry:
		var d events.RetryData
		if events.DecodeData(env, &d) == nil {
			if d.RetryPhase == events.RetryBuilder {
				return "retry via the builder: " + short(d.Reason, 100)
			}
			return "retry: " + short(d.Reason, 100)
		}
	case events.KindPassed, events.KindFailed:
		var d events.VerdictData
		if events.DecodeData(env, &d) == nil {
			line := fmt.Sprintf("%s, integrity %s: %s", strings.ToUpper(d.Status), d.Integrity, short(d.Reason, 100))
			if d.UsageTotal != nil {
				line += fmt.Sprintf(" (model: %d calls, %d/%d tokens)", d.UsageTotal.Calls, d.UsageTotal.InputTokens, d.UsageTotal.OutputTokens)
			}
			return line
		}
	case events.KindApprovalRequested, events.KindApprovalDecided:
		return describeApproval(env)
	case events.KindApprovalDeadline:
		return "approval deadline reached"
	}
	return ""
}

func short(s string, n int) string {
	s = joinLines(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// verdictOf decodes a terminal event's verdict.
func verdictOf(env events.Envelope) (events.VerdictData, error) {
	var v events.VerdictData
	err := events.DecodeData(env, &v)
	return v, err
}

// finish prints the terminal event (JSON or a closing line) and returns
// the exit code: 0 passed (and the integrity requirement met), 1 otherwise.
func (c *cli) finish(env events.Envelope, asJSON bool, requireIntegrity string) int {
	return c.finishAs(env, asJSON, false, requireIntegrity)
}

// finishAs is finish; quiet prints nothing (the terminal event was
// already streamed as a JSON line).
func (c *cli) finishAs(env events.Envelope, asJSON, quiet bool, requireIntegrity string) int {
	v, err := verdictOf(env)
	if err != nil {
		c.errorf("terminal event: %v", err)
		return exitFailure
	}
	switch {
	case quiet:
	case asJSON:
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(env)
	default:
		fmt.Fprintf(c.stdout, "run %s %s after %d attempt(s), integrity %s\n", env.RunID(), v.Status, v.Attempts, v.Integrity)
		if v.Change != nil && v.Change.Diff != "" && v.Status == events.StatusPassed {
			fmt.Fprintf(c.stdout, "\n%s", v.Change.Diff)
		}
	}
	if v.Status != events.StatusPassed {
		return exitFailure
	}
	if !integrityMeets(v.Integrity, requireIntegrity) {
		c.errorf("run passed with integrity %s, but %s is required", v.Integrity, requireIntegrity)
		return exitFailure
	}
	return exitOK
}

func integrityMeets(got, required string) bool {
	rank := map[string]int{events.IntegrityRed: 0, events.IntegrityAmber: 1, events.IntegrityGreen: 2}
	if required == "" {
		return true
	}
	return rank[got] >= rank[required]
}

// statusOf is a run's status as `runs` and `watch` show it: a running
// run that waits says on what.
func statusOf(s audit.Summary) string {
	if s.Status != audit.StatusRunning {
		return s.Status
	}
	switch s.Waiting {
	case "":
		return s.Status
	case "approval":
		return "waiting for approval"
	default:
		return "waiting: " + s.Waiting
	}
}

// summaryLine formats a run summary for `runs` and `watch`, its status
// padded to statusWidth (the widest status of the table).
func summaryLine(s audit.Summary, statusWidth int) string {
	age := "-"
	if !s.Updated.IsZero() {
		age = time.Since(s.Updated).Round(time.Second).String()
	}
	return fmt.Sprintf("%-26s  %-*s  %-7d  %-9s  %-5s  %-8s  %-13s  %s  spend %s", s.RunID, statusWidth, statusOf(s), s.Attempt, s.Phase,
		orDash(s.Integrity), age, tokens(s.Usage), short(s.Request, 60), s.Spend)
}

// tokens shows a run's model tokens as input/output, "-" when none.
func tokens(u *events.UsageTotal) string {
	if u == nil {
		return "-"
	}
	return fmt.Sprintf("%d/%d", u.InputTokens, u.OutputTokens)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
