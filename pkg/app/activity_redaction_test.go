package app

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/activity"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/progress"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/nats-io/nats.go"
)

// probe is an activity observer that keeps the events it is given.
type probe struct {
	mu     sync.Mutex
	events []activity.Event
}

func (p *probe) Begin(ctx context.Context, e activity.Event) (context.Context, func(error)) {
	p.mu.Lock()
	p.events = append(p.events, e)
	p.mu.Unlock()
	return ctx, func(error) {}
}

func (p *probe) Output(context.Context, activity.Event, string) {}

// TestActivitiesAreRedactedOnceForEveryObserver: a service's activities
// have their name and detail redacted once, as they begin, for all the
// handling's observers (Event.Redacted); the live progress messages and
// the spans carry no secret of them.
func TestActivitiesAreRedactedOnceForEveryObserver(t *testing.T) {
	const secret = "AKIAIOSFODNN7EXAMPLE"
	d, js, exp := tracedDeps(t)
	ch := make(chan *nats.Msg, 64)
	sub, err := js.Conn().ChanSubscribe(progress.RunSubjects("redactonce"), ch)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe() //nolint:errcheck
	if err := js.Conn().Flush(); err != nil {
		t.Fatal(err)
	}
	seen := &probe{}
	handled := make(chan struct{}, 1)
	comps := []Component{
		{Name: events.ServiceLibrarian, NewHandler: func(context.Context, *Deps) (worker.Handler, error) {
			return func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
				ctx = activity.WithObserver(ctx, seen)
				actx, end := activity.Begin(ctx, activity.Event{Kind: activity.Check, Name: "key " + secret, Detail: "curl -H 'X-Key: " + secret + "'"})
				activity.Output(actx, "output")
				end(nil)
				select {
				case handled <- struct{}{}:
				default:
				}
				return nil, nil
			}, nil
		}},
	}
	runComponents(t, d, comps, func() {
		publish(t, js, requestedEvent(t, "redactonce"))
		select {
		case <-handled:
		case <-time.After(60 * time.Second):
			t.Fatal("the librarian handled nothing")
		}
	})
	seen.mu.Lock()
	defer seen.mu.Unlock()
	if len(seen.events) != 1 || !seen.events[0].Redacted() || strings.Contains(seen.events[0].Name+seen.events[0].Detail, secret) {
		t.Fatalf("an observer of the handling saw %+v", seen.events)
	}
	var msgs []string
	deadline := time.After(60 * time.Second)
	for done := false; !done; {
		select {
		case m := <-ch:
			msgs = append(msgs, string(m.Data))
			var pm progress.Message
			if err := json.Unmarshal(m.Data, &pm); err != nil {
				t.Fatal(err)
			}
			done = pm.Type == progress.TypePhaseEnd
		case <-deadline:
			t.Fatalf("no phase end in %d progress messages", len(msgs))
		}
	}
	var started bool
	for _, m := range msgs {
		if strings.Contains(m, secret) {
			t.Errorf("progress message carries the secret: %s", m)
		}
		started = started || strings.Contains(m, `"name":"key [REDACTED`)
	}
	if !started {
		t.Errorf("no activity start with the redacted name in %v", msgs)
	}
	for _, s := range exp.GetSpans() {
		for _, a := range s.Attributes {
			if strings.Contains(s.Name, secret) || strings.Contains(a.Value.String(), secret) {
				t.Errorf("span %q carries the secret", s.Name)
			}
		}
	}
}
