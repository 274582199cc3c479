package worker

import (
	"context"
	"fmt"
	"sync"
)

type publishedKey struct{}

// PublishHooks holds the calls a handler asked for with OnPublished. The
// Runtime makes one per handling and runs it once the handler's outputs
// are stored; a test or tool that calls a handler itself and publishes
// its outputs makes one with WithPublishHooks and calls Published in the
// runtime's place.
type PublishHooks struct {
	mu   sync.Mutex
	byID map[string][]func(context.Context, uint64) error
}

// WithPublishHooks returns ctx carrying new, empty hooks, as the Runtime
// passes it to a handler.
func WithPublishHooks(ctx context.Context) (context.Context, *PublishHooks) {
	h := &PublishHooks{}
	return context.WithValue(ctx, publishedKey{}, h), h
}

// OnPublished asks for f to be called with the stream sequence of the
// handler's output whose event id is id, once that output is stored and
// before the input is acknowledged. For an output the stream dropped as
// a duplicate of one stored earlier (a redelivered input handled again
// within the stream's duplicate window), the sequence is that earlier
// message's. An error from f fails the handling like a failed publish:
// the input is redelivered, handled again, and f is called again. f is
// not called for an output the handler (or a wrapper of it) did not
// return. OnPublished reports false, and f is never called, when ctx
// carries no hooks (the handler was called directly).
func OnPublished(ctx context.Context, id string, f func(ctx context.Context, seq uint64) error) bool {
	h, ok := ctx.Value(publishedKey{}).(*PublishHooks)
	if !ok || h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byID == nil {
		h.byID = map[string][]func(context.Context, uint64) error{}
	}
	h.byID[id] = append(h.byID[id], f)
	return true
}

// Published calls the hooks registered for the output id with seq, the
// stream sequence it was stored at, in the order they were registered,
// and stops at the first error.
func (h *PublishHooks) Published(ctx context.Context, id string, seq uint64) error {
	h.mu.Lock()
	fs := h.byID[id]
	h.mu.Unlock()
	for _, f := range fs {
		if err := f(ctx, seq); err != nil {
			return fmt.Errorf("after publishing %s: %w", id, err)
		}
	}
	return nil
}
