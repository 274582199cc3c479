package activity

import (
	"context"
	"testing"
)

type outputs struct{ got []string }

func (o *outputs) Begin(ctx context.Context, _ Event) (context.Context, func(error)) {
	return ctx, func(error) {}
}

func (o *outputs) Output(_ context.Context, _ Event, text string) { o.got = append(o.got, text) }

func TestLinesSplitsAndBoundsLines(t *testing.T) {
	o := &outputs{}
	ctx, end := Begin(WithObserver(context.Background(), o), Event{Kind: Check, Name: "x"})
	defer end(nil)
	w, flush := Lines(ctx)
	_, _ = w.Write([]byte("one\r\ntw"))
	_, _ = w.Write([]byte("o\n"))
	_, _ = w.Write(make([]byte, maxLine+10))
	flush()
	if len(o.got) != 4 || o.got[0] != "one" || o.got[1] != "two" || len(o.got[2]) != maxLine || len(o.got[3]) != 10 {
		t.Fatalf("lines %q", o.got)
	}
	if w, _ := Lines(context.Background()); w == nil {
		t.Fatal("no writer without observers")
	}
}
