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

// IsLost reports whether err means a referenced artifact is gone or
// damaged: retrying cannot help, so callers treat it as permanent.
func IsLost(err error) bool { return errors.Is(err, ErrNotFound) || errors.Is(err, ErrCorrupt) }

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

// Put stores data content-addressed under prefix ("<prefix>/<sha256>")
// and returns its reference. The name is derived from the content, so an
// object is never replaced by different bytes: a redelivered handler that
// produces other content stores a second object, and every reference
// already handed on stays valid. Storing identical content again is a
// no-op.
func (s *Store) Put(ctx context.Context, prefix string, data []byte) (events.ArtifactRef, error) {
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	ref := events.ArtifactRef{Bucket: s.bucket, Name: prefix + "/" + digest, Size: int64(len(data)), SHA256: digest}
	if info, err := s.obj.GetInfo(ctx, ref.Name); err == nil && info.Size == uint64(len(data)) {
		return ref, nil
	}
	if _, err := s.obj.PutBytes(ctx, ref.Name, data); err != nil {
		return events.ArtifactRef{}, fmt.Errorf("could not store artifact %s: %w", ref.Name, err)
	}
	return ref, nil
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
