// Package artifacts keeps large run artifacts (context bundles, diffs) in
// a JetStream object store bucket, so events stay small and carry only a
// reference with the artifact's size and SHA-256.
package artifacts

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrCorrupt: an artifact's content does not match its reference.
var ErrCorrupt = errors.New("artifact does not match its reference")

// ErrNotFound: the referenced artifact does not exist.
var ErrNotFound = errors.New("artifact not found")

// Store puts and gets artifacts. Safe for concurrent use.
type Store struct {
	obj    jetstream.ObjectStore
	bucket string
}

// Open returns the store over the artifacts bucket, which must exist
// (bus.Provision creates it).
func Open(ctx context.Context, js jetstream.JetStream) (*Store, error) {
	obj, err := js.ObjectStore(ctx, events.BucketArtifacts)
	if err != nil {
		return nil, fmt.Errorf("could not open object store %s: %w", events.BucketArtifacts, err)
	}
	return &Store{obj: obj, bucket: events.BucketArtifacts}, nil
}

// Put stores data under name (for instance "<run>/<attempt>/diff") and
// returns its reference. Putting the same name again replaces it, so a
// redelivered handler is idempotent.
func (s *Store) Put(ctx context.Context, name string, data []byte) (events.ArtifactRef, error) {
	if _, err := s.obj.PutBytes(ctx, name, data); err != nil {
		return events.ArtifactRef{}, fmt.Errorf("could not store artifact %s: %w", name, err)
	}
	sum := sha256.Sum256(data)
	return events.ArtifactRef{Bucket: s.bucket, Name: name, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}, nil
}

// Get fetches the artifact and checks its size and digest. It returns an
// error wrapping ErrNotFound or ErrCorrupt.
func (s *Store) Get(ctx context.Context, ref events.ArtifactRef) ([]byte, error) {
	if ref.Bucket != s.bucket {
		return nil, fmt.Errorf("%w: bucket %q (want %q)", ErrNotFound, ref.Bucket, s.bucket)
	}
	data, err := s.obj.GetBytes(ctx, ref.Name)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, ref.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("could not fetch artifact %s: %w", ref.Name, err)
	}
	sum := sha256.Sum256(data)
	if int64(len(data)) != ref.Size || !bytes.Equal([]byte(hex.EncodeToString(sum[:])), []byte(ref.SHA256)) {
		return nil, fmt.Errorf("%w: %s", ErrCorrupt, ref.Name)
	}
	return data, nil
}
