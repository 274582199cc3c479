package msgid

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// StoreKey is the key of the message id key in events.BucketKeys.
const StoreKey = "msgid"

// Ensure stores a new random key in kv unless one is stored already (a
// create: concurrent provisioners keep the first key, and an existing key
// is never replaced, so ids stay the same across provisioning runs).
func Ensure(ctx context.Context, kv jetstream.KeyValue) error {
	if _, err := kv.Get(ctx, StoreKey); err == nil {
		return nil
	} else if !errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("could not read the message id key: %w", err)
	}
	k, err := Random()
	if err != nil {
		return err
	}
	if _, err := kv.Create(ctx, StoreKey, k.secret); err != nil && !errors.Is(err, jetstream.ErrKeyExists) {
		return fmt.Errorf("could not store the message id key: %w", err)
	}
	return nil
}

// Read reads the message id key from kv, the key bucket (bus.MsgIDKey
// opens it and reads through its leader). A missing or malformed key is
// an error.
func Read(ctx context.Context, kv jetstream.KeyValue) (Key, error) {
	e, err := kv.Get(ctx, StoreKey)
	if err != nil {
		return Key{}, fmt.Errorf("could not read the message id key: %w", err)
	}
	return NewKey(e.Value())
}
