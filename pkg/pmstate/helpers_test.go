package pmstate

import (
	"context"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go/jetstream"
)

// testCtx returns a context that ends with the test or after 20 seconds.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newBucket starts an embedded server and returns its JetStream handle and a
// fresh bucket.
func newBucket(t *testing.T) (jetstream.JetStream, jetstream.KeyValue) {
	t.Helper()
	_, _, js := natstest.StartJS(t)
	kv, err := provisionedBucket(testCtx(t), js)
	if err != nil {
		t.Fatalf("bucket: %v", err)
	}
	return js, kv
}

// newStore returns a Store over a fresh bucket plus the bucket.
func newStore(t *testing.T, opts ...Option) (*Store, jetstream.KeyValue) {
	t.Helper()
	_, kv := newBucket(t)
	s, err := New(kv, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s, kv
}

// mustKey returns ProjectKey(project) or fails the test.
func mustKey(t *testing.T, project string) string {
	t.Helper()
	key, err := ProjectKey(project)
	if err != nil {
		t.Fatalf("ProjectKey: %v", err)
	}
	return key
}

// provisionedBucket provisions the Codali resources the way services do
// (bus.Provision) and returns the project-state bucket.
func provisionedBucket(ctx context.Context, js jetstream.JetStream) (jetstream.KeyValue, error) {
	if err := bus.Provision(ctx, js, bus.Topology{}, []string{}); err != nil {
		return nil, err
	}
	return js.KeyValue(ctx, events.BucketPMState)
}
