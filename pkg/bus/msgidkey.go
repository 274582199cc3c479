package bus

import (
	"context"
	"fmt"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/msgid"
	"github.com/nats-io/nats.go/jetstream"
)

// MsgIDKey reads the message id key that Provision stored in
// events.BucketKeys, through the bucket's leader (a replica that has not
// yet applied a key just created would answer that there is none). A
// missing or malformed key is an error: nothing publishes a service's
// event without it.
func MsgIDKey(ctx context.Context, js jetstream.JetStream) (msgid.Key, error) {
	kv, err := js.KeyValue(ctx, events.BucketKeys)
	if err != nil {
		return msgid.Key{}, fmt.Errorf("could not open bucket %s: %w", events.BucketKeys, err)
	}
	return msgid.Read(ctx, LeaderReads(js, kv))
}
