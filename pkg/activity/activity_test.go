package activity_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
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
