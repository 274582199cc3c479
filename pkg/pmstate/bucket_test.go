package pmstate

import (
	"errors"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

func TestEnsureBucketIsIdempotent(t *testing.T) {
	js, kv := newBucket(t)
	ctx := testCtx(t)
	if _, err := kv.Put(ctx, "pm.eA", []byte("{}")); err != nil {
		t.Fatalf("Put: %v", err)
	}
	again, err := EnsureBucket(ctx, js, "cognition", 1)
	if err != nil {
		t.Fatalf("second EnsureBucket: %v", err)
	}
	if again.Bucket() != "cognition" {
		t.Errorf("bucket = %q", again.Bucket())
	}
	if _, err := again.Get(ctx, "pm.eA"); err != nil {
		t.Errorf("existing data lost: %v", err)
	}
	st, err := again.Status(ctx)
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	if st.History() != 1 {
		t.Errorf("history = %d, want 1", st.History())
	}
}

func TestEnsureBucketKeepsDifferentExistingConfig(t *testing.T) {
	js, _ := newBucket(t)
	ctx := testCtx(t)
	if _, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "custom", History: 5}); err != nil {
		t.Fatalf("CreateKeyValue: %v", err)
	}
	kv, err := EnsureBucket(ctx, js, "custom", 1)
	if err != nil {
		t.Fatalf("EnsureBucket: %v", err)
	}
	st, err := kv.Status(ctx)
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	if st.History() != 5 {
		t.Errorf("history = %d, want the existing 5", st.History())
	}
}

func TestEnsureBucketErrors(t *testing.T) {
	js, _ := newBucket(t)
	ctx := testCtx(t)
	// A stream squatting on the bucket's stream name that is not a KV bucket.
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "KV_squat", Subjects: []string{"squat.>"}}); err != nil {
		t.Fatalf("CreateStream: %v", err)
	}
	tests := []struct {
		name     string
		js       jetstream.JetStream
		bucket   string
		replicas int
		wantErr  error
	}{
		{name: "nil JetStream", js: nil, bucket: "b", replicas: 1, wantErr: ErrInvalidConfig},
		{name: "zero replicas", js: js, bucket: "b", replicas: 0, wantErr: ErrInvalidConfig},
		{name: "invalid bucket name", js: js, bucket: "bad name", replicas: 1, wantErr: jetstream.ErrInvalidBucketName},
		{name: "existing stream is not a bucket", js: js, bucket: "squat", replicas: 1, wantErr: jetstream.ErrBadBucket},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kv, err := EnsureBucket(ctx, tt.js, tt.bucket, tt.replicas)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v, want %v", err, tt.wantErr)
			}
			if kv != nil {
				t.Error("got a bucket along with the error")
			}
		})
	}
}
