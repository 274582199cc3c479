// Package activity lets phases announce what they are doing — a tool call,
// a verification check, streamed model output — to observers installed in
// the context (tracing, live progress), without knowing them. With no
// observer installed every call is a cheap no-op.
package activity

import "context"

// Kind is the kind of an activity.
type Kind string

// Kinds of activity.
const (
	// Tool is a tool call of the builder's model.
	Tool Kind = "tool"
	// Check is a verification command of the critic.
	Check Kind = "check"
	// Model is a model request.
	Model Kind = "model"
)

// Event describes an activity as it starts.
type Event struct {
	Kind Kind
	// Name is the tool, check or model name.
	Name string
	// Detail is a short description (a path, a command line).
	Detail string
	// Step is the builder's step, when there is one.
	Step int

	// redacted: Begin passed Name and Detail through the context's
	// redaction (WithRedaction).
	redacted bool
}

// Redacted reports whether Begin redacted e's Name and Detail (see
// WithRedaction): an observer takes them as they are. An observer given
// an event that is not redacted redacts them itself. Only Begin sets it.
func (e Event) Redacted() bool { return e.redacted }

// Observer is told about activities. Implementations must be safe for
// concurrent use and must not block: they run on the phase's path.
type Observer interface {
	// Begin is called as an activity starts. It returns the context for the
	// activity's work and the function to call when it ends, with its
	// error (nil on success).
	Begin(ctx context.Context, e Event) (context.Context, func(err error))
	// Output is called with output of the activity e running in ctx: a
	// line of a check's output, or a piece of a streamed model answer.
	Output(ctx context.Context, e Event, text string)
}

type key struct{}

type currentKey struct{}

type redactKey struct{}

// WithRedaction returns a context whose activities have their Name and
// Detail (a tool's name is the model's text, a check's name and command
// line the plan's) passed through redact once, by Begin, before any
// observer sees them: every observer (spans, live progress) gets the same
// redacted texts, and none redacts them again (Event.Redacted). A nil
// redact changes nothing.
func WithRedaction(ctx context.Context, redact func(string) string) context.Context {
	if redact == nil {
		return ctx
	}
	return context.WithValue(ctx, redactKey{}, redact)
}

// Current returns the innermost activity begun in ctx.
func Current(ctx context.Context) (Event, bool) {
	e, ok := ctx.Value(currentKey{}).(Event)
	return e, ok
}

// WithObserver returns a context that reports activities to o, after the
// observers ctx already has.
func WithObserver(ctx context.Context, o Observer) context.Context {
	prev, _ := ctx.Value(key{}).([]Observer)
	next := make([]Observer, 0, len(prev)+1)
	next = append(append(next, prev...), o)
	return context.WithValue(ctx, key{}, next)
}

func observers(ctx context.Context) []Observer {
	obs, _ := ctx.Value(key{}).([]Observer)
	return obs
}

// Begin announces an activity to every observer of ctx. Call the returned
// function exactly once when the activity ends.
func Begin(ctx context.Context, e Event) (context.Context, func(err error)) {
	obs := observers(ctx)
	if len(obs) == 0 {
		return ctx, func(error) {}
	}
	// Only this Begin's redaction counts: an event copied from Current
	// and changed is not taken for redacted.
	e.redacted = false
	if redact, ok := ctx.Value(redactKey{}).(func(string) string); ok {
		e.Name, e.Detail, e.redacted = redact(e.Name), redact(e.Detail), true
	}
	ctx = context.WithValue(ctx, currentKey{}, e)
	ends := make([]func(error), 0, len(obs))
	for _, o := range obs {
		var end func(error)
		ctx, end = o.Begin(ctx, e)
		ends = append(ends, end)
	}
	return ctx, func(err error) {
		for i := len(ends) - 1; i >= 0; i-- {
			ends[i](err)
		}
	}
}

// Output reports output of the activity running in ctx (see Current) to
// every observer. Output outside an activity is dropped.
func Output(ctx context.Context, text string) {
	e, ok := Current(ctx)
	if !ok {
		return
	}
	for _, o := range observers(ctx) {
		o.Output(ctx, e, text)
	}
}

// Enabled reports whether ctx has an observer (to skip preparing output
// nobody reads).
func Enabled(ctx context.Context) bool { return len(observers(ctx)) > 0 }
