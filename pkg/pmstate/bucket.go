package pmstate

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// EnsureBucket returns the KV bucket called name, creating it with the given
// number of replicas and a history of one revision per key when it does not
// exist. It is idempotent: an existing bucket is returned as it is, even if
// its configuration differs. A nil js or replicas < 1 fails with
// ErrInvalidConfig; server errors (invalid name, unusable existing stream,
// unreachable JetStream) are wrapped.
func EnsureBucket(ctx context.Context, js jetstream.JetStream, name string, replicas int) (jetstream.KeyValue, error) {
	if js == nil {
		return nil, fmt.Errorf("%w: nil JetStream", ErrInvalidConfig)
	}
	if replicas < 1 {
		return nil, fmt.Errorf("%w: %d replicas", ErrInvalidConfig, replicas)
	}
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      name,
		Description: "Cortex cognition state per project",
		History:     1,
		Replicas:    replicas,
	})
	if err == nil {
		return kv, nil
	}
	if !errors.Is(err, jetstream.ErrBucketExists) {
		return nil, fmt.Errorf("could not create KV bucket %q: %w", name, err)
	}
	kv, err = js.KeyValue(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("could not open existing KV bucket %q: %w", name, err)
	}
	return kv, nil
}
