package worker

import (
	"context"

	"github.com/nats-io/nats.go"
)

type deliveryKey struct{}

// Delivery describes the stream message a handler call is handling.
type Delivery struct {
	// StreamSeq is the message's sequence in the consumed stream.
	StreamSeq uint64
	// Deliveries counts how often the message has been delivered.
	Deliveries uint64
	// Header is the message's NATS header (for instance its traceparent).
	Header nats.Header
}

// ContextWithDelivery returns ctx carrying d, as the Runtime passes it to
// handlers (tools and tests that call a handler directly use it too).
func ContextWithDelivery(ctx context.Context, d Delivery) context.Context {
	return context.WithValue(ctx, deliveryKey{}, d)
}

// DeliveryFrom returns the delivery a handler's ctx carries; ok is false
// when the handler was not called by a Runtime (for instance in a test that
// calls it directly).
func DeliveryFrom(ctx context.Context) (d Delivery, ok bool) {
	d, ok = ctx.Value(deliveryKey{}).(Delivery)
	return d, ok && d.StreamSeq > 0
}
