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
}

// subscription is a run's live event feed, opened before anything that
// could produce the events.
type subscription struct {
	sub *nats.Subscription
	ch  chan *nats.Msg
	// digest, when set, is the digest of the run's request: events of the
	// run's subjects that carry another request (someone publishing on
	// this run's subjects) are ignored, never taken as the run's end.
	digest string
}

func subscribeRun(cl *client, runID string) (*subscription, error) {
	ch := make(chan *nats.Msg, 1024)
	sub, err := cl.nc.ChanSubscribe(events.RunSubjects(runID), ch)
	if err != nil {
		return nil, fmt.Errorf("could not subscribe to run %s: %w", runID, err)
	}
	if err := cl.nc.Flush(); err != nil {
		_ = sub.Unsubscribe()
		return nil, fmt.Errorf("could not subscribe to run %s: %w", runID, err)
	}
	return &subscription{sub: sub, ch: ch}, nil
}

func (s *subscription) close() { _ = s.sub.Unsubscribe() }

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
				select {
				case m := <-s.ch:
					if env, err := (events.Decoder{MaxBytes: 8 << 20}).Decode(m.Subject, m.Data); err == nil {
						if k, _ := env.Kind(); k.Terminal() {
							f.event(env)
							return env, audit.Summary{}, nil
						}
					}
				default:
				}
				f.clear()
				return events.Envelope{}, sum, errEndedElsewhere
			}
		case m := <-s.ch:
			env, err := events.Decoder{MaxBytes: 8 << 20}.Decode(m.Subject, m.Data)
			if err != nil {
				f.println(fmt.Sprintf("(ignoring an invalid event on %s: %v)", m.Subject, err))
				continue
			}
			if s.digest != "" {
				if err := events.CheckBelongs(env, s.digest); err != nil {
					f.println(fmt.Sprintf("(ignoring %s from %s: %v)", env.ID, env.Source, err))
					continue
				}
			}
			f.event(env)
			if k, _ := env.Kind(); k.Terminal() {
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

func (f *follower) event(env events.Envelope) {
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
	fmt.Fprintf(f.w, "\r\033[K  … %s working (%.1fs)", f.phase, time.Since(f.last).Seconds())
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
			return fmt.Sprintf("%d steps, %d checks: %s", len(d.Plan.Steps), len(d.Plan.Verify), short(d.Plan.Summary, 60))
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
			return "retry: " + short(d.Reason, 100)
		}
	case events.KindPassed, events.KindFailed:
		var d events.VerdictData
		if events.DecodeData(env, &d) == nil {
			return fmt.Sprintf("%s, integrity %s: %s", strings.ToUpper(d.Status), d.Integrity, short(d.Reason, 100))
		}
	case events.KindApprovalRequested, events.KindApprovalDecided:
		return describeApproval(env)
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
	v, err := verdictOf(env)
	if err != nil {
		c.errorf("terminal event: %v", err)
		return exitFailure
	}
	if asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(env)
	} else {
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

// summaryLine formats a run summary for `runs` and `watch`.
func summaryLine(s audit.Summary) string {
	age := "-"
	if !s.Updated.IsZero() {
		age = time.Since(s.Updated).Round(time.Second).String()
	}
	status := s.Status
	if s.Status == audit.StatusRunning {
		switch s.Waiting {
		case "":
		case "approval":
			status = "waiting for approval"
		default:
			status = "waiting: " + s.Waiting
		}
	}
	return fmt.Sprintf("%-26s  %-9s  %-7d  %-9s  %-5s  %-8s  %s  spend %s", s.RunID, status, s.Attempt, s.Phase, orDash(s.Integrity), age, short(s.Request, 60), s.Spend)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
