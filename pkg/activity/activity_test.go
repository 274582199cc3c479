package activity_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/codali-dev/codali/pkg/activity"
)

type ctxKey string

type recorder struct {
	name string
	mu   *sync.Mutex
	log  *[]string
}

func (r recorder) add(s string) {
	r.mu.Lock()
	*r.log = append(*r.log, s)
	r.mu.Unlock()
}

func (r recorder) Begin(ctx context.Context, e activity.Event) (context.Context, func(error)) {
	r.add(r.name + " begin " + string(e.Kind) + " " + e.Name)
	ctx = context.WithValue(ctx, ctxKey(r.name), true)
	return ctx, func(err error) {
		s := r.name + " end"
		if err != nil {
			s += " " + err.Error()
		}
		r.add(s)
	}
}

func (r recorder) Output(ctx context.Context, e activity.Event, text string) {
	_, inside := ctx.Value(ctxKey(r.name)).(bool)
	if inside {
		r.add(r.name + " output " + e.Name + " " + text)
	}
}

func TestObserversInOrder(t *testing.T) {
	ctx := context.Background()
	if activity.Enabled(ctx) {
		t.Fatal("enabled without observers")
	}
	c, end := activity.Begin(ctx, activity.Event{Kind: activity.Tool, Name: "x"})
	activity.Output(c, "ignored")
	end(nil)

	var mu sync.Mutex
	var log []string
	ctx = activity.WithObserver(ctx, recorder{"a", &mu, &log})
	ctx = activity.WithObserver(ctx, recorder{"b", &mu, &log})
	c, end = activity.Begin(ctx, activity.Event{Kind: activity.Check, Name: "go test"})
	activity.Output(c, "ok")
	activity.Output(ctx, "outside")
	end(errors.New("exit 1"))
	want := []string{"a begin check go test", "b begin check go test", "a output go test ok", "b output go test ok", "b end exit 1", "a end exit 1"}
	if !reflect.DeepEqual(log, want) || !activity.Enabled(ctx) {
		t.Fatalf("log = %q", log)
	}
}

// seen is an observer that keeps the events it is given.
type seen struct {
	mu     *sync.Mutex
	events *[]activity.Event
}

func (s seen) Begin(ctx context.Context, e activity.Event) (context.Context, func(error)) {
	s.mu.Lock()
	*s.events = append(*s.events, e)
	s.mu.Unlock()
	return ctx, func(error) {}
}

func (s seen) Output(_ context.Context, e activity.Event, _ string) {
	s.mu.Lock()
	*s.events = append(*s.events, e)
	s.mu.Unlock()
}

// TestRedactionOnce: with WithRedaction, Begin redacts an activity's name
// and detail once, whatever the number of observers, and every observer
// (Begin and Output) gets the redacted event, marked Redacted; without
// it the event is handed on as it is, not marked.
func TestRedactionOnce(t *testing.T) {
	const secret = "AKIAIOSFODNN7EXAMPLE"
	var calls atomic.Int64
	redact := func(s string) string {
		calls.Add(1)
		return strings.ReplaceAll(s, secret, "[REDACTED]")
	}
	var mu sync.Mutex
	var got []activity.Event
	ctx := activity.WithObserver(activity.WithObserver(context.Background(), seen{&mu, &got}), seen{&mu, &got})
	e := activity.Event{Kind: activity.Check, Name: "key " + secret, Detail: "curl -H 'X-Key: " + secret + "'"}

	actx, end := activity.Begin(activity.WithRedaction(ctx, redact), e)
	activity.Output(actx, "line")
	end(nil)
	if n := calls.Load(); n != 2 {
		t.Fatalf("redact called %d times, want once for the name and once for the detail", n)
	}
	if len(got) != 4 {
		t.Fatalf("observers saw %d events, want 4", len(got))
	}
	for _, g := range got {
		if !g.Redacted() || g.Name != "key [REDACTED]" || g.Detail != "curl -H 'X-Key: [REDACTED]'" {
			t.Errorf("observer saw %+v (redacted %v)", g, g.Redacted())
		}
	}

	got = nil
	_, end = activity.Begin(activity.WithRedaction(ctx, nil), e)
	end(nil)
	_, end = activity.Begin(ctx, e)
	end(nil)
	for _, g := range got {
		if g.Redacted() || g.Name != e.Name || g.Detail != e.Detail {
			t.Errorf("without a redaction an observer saw %+v (redacted %v)", g, g.Redacted())
		}
	}
	if len(got) != 4 || calls.Load() != 2 {
		t.Fatalf("%d events, %d redactions", len(got), calls.Load())
	}

	// An event copied from a redacted activity and changed is not taken
	// for redacted where Begin redacts nothing.
	copied, ok := activity.Current(actx)
	if !ok || !copied.Redacted() {
		t.Fatalf("current activity %+v (redacted %v)", copied, copied.Redacted())
	}
	copied.Name = secret
	got = nil
	_, end = activity.Begin(ctx, copied)
	end(nil)
	if len(got) != 2 || got[0].Redacted() || got[1].Redacted() {
		t.Fatalf("a changed copy of a redacted event: %+v", got)
	}
}
