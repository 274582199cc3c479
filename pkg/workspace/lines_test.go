package workspace

import (
	"context"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/activity"
)

type lines struct {
	mu  sync.Mutex
	got []string
}

func (l *lines) Begin(ctx context.Context, _ activity.Event) (context.Context, func(error)) {
	return ctx, func(error) {}
}

func (l *lines) Output(_ context.Context, _ activity.Event, text string) {
	l.mu.Lock()
	l.got = append(l.got, text)
	l.mu.Unlock()
}

func TestRunReportsOutputLines(t *testing.T) {
	obs := &lines{}
	ctx := activity.WithObserver(context.Background(), obs)
	ctx, end := activity.Begin(ctx, activity.Event{Kind: activity.Check, Name: "sh"})
	res, err := Run(ctx, t.TempDir(), []string{"sh", "-c", "echo one; echo two 1>&2; printf 'three\r\nfour'"}, os.Environ(), time.Minute, 1<<20)
	end(err)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run: %v %+v", err, res)
	}
	if want := []string{"one", "two", "three", "four"}; !reflect.DeepEqual(obs.got, want) {
		t.Fatalf("lines %q, want %q", obs.got, want)
	}
}
