package app

import (
	"context"

	"github.com/codali-dev/codali/pkg/activity"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/progress"
	"github.com/codali-dev/codali/pkg/worker"
)

// progressHandler publishes the live progress of each handling (see
// package progress) through pub.
func progressHandler(pub *progress.Publisher, service string, h worker.Handler) worker.Handler {
	return func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		ctx, end := pub.Handling(ctx, in.RunID(), service, in.Attempt, in.ID)
		outs, err := h(ctx, in)
		end(err)
		return outs, err
	}
}

// redactActivities has the name and detail of every activity of a
// handling redacted once, as it begins, for all its observers (the
// handling's spans and its live progress): activity.WithRedaction.
func redactActivities(redact func(string) string, h worker.Handler) worker.Handler {
	return func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		return h(activity.WithRedaction(ctx, redact), in)
	}
}

// modelActivity announces every model call as an activity, so that
// progress shows it and streamed output is attributed to it.
type modelActivity struct{ inner llm.Provider }

func (m modelActivity) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	ctx, end := activity.Begin(ctx, activity.Event{Kind: activity.Model, Name: req.Model, Step: req.Step})
	resp, err := m.inner.Complete(ctx, req)
	end(err)
	return resp, err
}
