package progress_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/activity"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/progress"
	"github.com/nats-io/nats.go"
)

// streaming is a fake model provider that streams its answer token by
// token through activity.Output, as the streaming providers do.
type streaming struct{ tokens int }

func (s streaming) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	ctx, end := activity.Begin(ctx, activity.Event{Kind: activity.Model, Name: req.Model, Step: req.Step})
	defer end(nil)
	answer := ""
	for i := range s.tokens {
		tok := fmt.Sprintf("t%d ", i)
		activity.Output(ctx, tok)
		answer += tok
	}
	return llm.Response{Content: answer}, nil
}

func receive(t *testing.T, ch <-chan *nats.Msg, n int) []progress.Message {
	t.Helper()
	out := make([]progress.Message, 0, n)
	deadline := time.After(60 * time.Second)
	for len(out) < n {
		select {
		case m := <-ch:
			var msg progress.Message
			if err := json.Unmarshal(m.Data, &msg); err != nil {
				t.Fatalf("bad message on %s: %v", m.Subject, err)
			}
			out = append(out, msg)
		case <-deadline:
			t.Fatalf("received %d of %d messages", len(out), n)
		}
	}
	return out
}

func TestStreamedTokensArriveInOrder(t *testing.T) {
	srv := natstest.Start(t)
	nc, _ := natstest.Connect(t, srv)
	sub, _ := natstest.Connect(t, srv)
	ch := make(chan *nats.Msg, 4096)
	s, err := sub.ChanSubscribe(progress.RunSubjects("run-1"), ch)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Unsubscribe() //nolint:errcheck
	if err := sub.Flush(); err != nil {
		t.Fatal(err)
	}
	pub := progress.NewPublisher(nc, 0, nil, nil)
	defer pub.Close()
	const tokens = 500
	ctx, end := pub.Handling(context.Background(), "run-1", "builder", 2, "run-1.plan.2")
	if _, err := (streaming{tokens}).Complete(ctx, llm.Request{Model: "m", Step: 3}); err != nil {
		t.Fatal(err)
	}
	end(errors.New("step limit"))

	msgs := receive(t, ch, tokens+4)
	for i, m := range msgs {
		if m.Seq != uint64(i+1) || m.RunID != "run-1" || m.Phase != "builder" || m.Attempt != 2 || m.Handling != "run-1.plan.2" {
			t.Fatalf("message %d: %+v", i, m)
		}
	}
	if msgs[0].Type != progress.TypePhaseStart || msgs[1].Type != progress.TypeStart || msgs[1].Activity != "model" || msgs[1].Step != 3 {
		t.Fatalf("start: %+v %+v", msgs[0], msgs[1])
	}
	for i := range tokens {
		m := msgs[2+i]
		if m.Type != progress.TypeOutput || m.Text != fmt.Sprintf("t%d ", i) {
			t.Fatalf("token %d: %+v", i, m)
		}
	}
	last, end2 := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if last.Type != progress.TypeEnd || last.OK == nil || !*last.OK || end2.Type != progress.TypePhaseEnd || *end2.OK || end2.Error != "step limit" {
		t.Fatalf("ends: %+v %+v", last, end2)
	}
	if s := progress.Subject("r", "critic"); s != "codali.progress.r.critic" {
		t.Fatal(s)
	}
}

// A reader that never reads does not hold the phase up: every message is
// handed over without waiting, and a reader that keeps up still gets the
// end of the phase.
func TestSlowReaderDoesNotSlowThePhase(t *testing.T) {
	srv := natstest.Start(t)
	nc, _ := natstest.Connect(t, srv)
	slow, _ := natstest.Connect(t, srv)
	stuck := make(chan *nats.Msg) // never read
	if _, err := slow.ChanSubscribe(progress.RunSubjects("run-2"), stuck); err != nil {
		t.Fatal(err)
	}
	fast, _ := natstest.Connect(t, srv)
	ends := make(chan *nats.Msg, 32768) // room for everything: this reader keeps up
	if _, err := fast.ChanSubscribe(progress.Subject("run-2", "critic"), ends); err != nil {
		t.Fatal(err)
	}
	_ = slow.Flush()
	_ = fast.Flush()
	pub := progress.NewPublisher(nc, 64, func(s string) string { return s }, nil)
	defer pub.Close()
	ctx, end := pub.Handling(context.Background(), "run-2", "critic", 1, "run-2.built.1")
	cctx, endCheck := activity.Begin(ctx, activity.Event{Kind: activity.Check, Name: "go test"})
	for i := range 20000 {
		activity.Output(cctx, fmt.Sprintf("line %d", i))
	}
	endCheck(nil)
	end(nil)
	pub.Close()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case m := <-ends:
			var msg progress.Message
			if err := json.Unmarshal(m.Data, &msg); err != nil {
				t.Fatal(err)
			}
			if msg.Type == progress.TypePhaseEnd {
				if msg.Seq != 20004 {
					t.Fatalf("phase end seq %d", msg.Seq)
				}
				return
			}
		case <-deadline:
			t.Fatalf("no phase end (dropped %d)", pub.Dropped())
		}
	}
}

// An activity's name is the model's or the plan's text (a tool name, a
// check name): it is redacted like the detail, output and error.
func TestActivityNamesAreRedacted(t *testing.T) {
	const secret = "AKIAIOSFODNN7EXAMPLE"
	srv := natstest.Start(t)
	nc, _ := natstest.Connect(t, srv)
	sub, _ := natstest.Connect(t, srv)
	ch := make(chan *nats.Msg, 16)
	s, err := sub.ChanSubscribe(progress.RunSubjects("run-2"), ch)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Unsubscribe() //nolint:errcheck
	if err := sub.Flush(); err != nil {
		t.Fatal(err)
	}
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }
	pub := progress.NewPublisher(nc, 0, redact, nil)
	defer pub.Close()
	ctx, end := pub.Handling(context.Background(), "run-2", "critic", 1, "run-2.built.1")
	actx, endCheck := activity.Begin(ctx, activity.Event{Kind: activity.Check, Name: "check " + secret})
	activity.Output(actx, "ok")
	endCheck(nil)
	end(nil)
	for _, m := range receive(t, ch, 5) {
		if raw, _ := json.Marshal(m); strings.Contains(string(raw), secret) {
			t.Errorf("progress message carries the secret: %s", raw)
		}
	}
}

// TestRedactedActivitiesAreNotRedactedAgain: an activity whose name and
// detail Begin redacted (activity.WithRedaction, as the services have
// it) is published as it is: the publisher redacts only the texts Begin
// did not (the output); one Begin did not redact gets its name and
// detail redacted here. Neither message carries the secret.
func TestRedactedActivitiesAreNotRedactedAgain(t *testing.T) {
	const secret = "AKIAIOSFODNN7EXAMPLE"
	srv := natstest.Start(t)
	nc, _ := natstest.Connect(t, srv)
	sub, _ := natstest.Connect(t, srv)
	var calls atomic.Int64
	redact := func(s string) string {
		calls.Add(1)
		return strings.ReplaceAll(s, secret, "[REDACTED]")
	}
	pub := progress.NewPublisher(nc, 0, redact, nil)
	defer pub.Close()
	for i, tc := range []struct {
		name  string
		once  bool
		calls int64
	}{
		{"redacted by Begin", true, 1},      // the output line
		{"not redacted by Begin", false, 4}, // name, detail; name and line of the output
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := fmt.Sprintf("run-r%d", i)
			ch := make(chan *nats.Msg, 16)
			s, err := sub.ChanSubscribe(progress.RunSubjects(run), ch)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Unsubscribe() //nolint:errcheck
			if err := sub.Flush(); err != nil {
				t.Fatal(err)
			}
			calls.Store(0)
			ctx, end := pub.Handling(context.Background(), run, "critic", 1, run+".built.1")
			if tc.once {
				ctx = activity.WithRedaction(ctx, func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") })
			}
			actx, endCheck := activity.Begin(ctx, activity.Event{Kind: activity.Check, Name: "check " + secret, Detail: "curl " + secret})
			activity.Output(actx, "ok")
			endCheck(nil)
			n := calls.Load()
			end(nil)
			if n != tc.calls {
				t.Errorf("the publisher redacted %d texts, want %d", n, tc.calls)
			}
			msgs := receive(t, ch, 5)
			for _, m := range msgs {
				if raw, _ := json.Marshal(m); strings.Contains(string(raw), secret) {
					t.Errorf("progress message carries the secret: %s", raw)
				}
			}
			if start := msgs[1]; start.Name != "check [REDACTED]" || start.Detail != "curl [REDACTED]" {
				t.Errorf("activity start %+v", start)
			}
		})
	}
}
