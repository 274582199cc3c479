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
	"time"

	"github.com/codali-dev/codali/pkg/bus"
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
	ref := refOf(s.bucket, prefix, data)
	// A replica that has not applied an object just stored says it is
	// missing: the same bytes are stored again under the same name, which
	// changes no reference.
	ictx, cancel := context.WithTimeout(ctx, bus.RequestTimeout)
	info, err := s.obj.GetInfo(ictx, ref.Name)
	cancel()
	if err == nil && info.Size == uint64(len(data)) {
		return ref, nil
	}
	return s.put(ctx, ref, data)
}

// PutNew stores data like Put, without first looking whether it is stored
// already: a round trip less, for content that is new by construction
// (it carries the time it was made, as a model exchange's record does).
// Storing content that is there already replaces the object with an equal
// one in new chunks, purging the old ones under a reader that is reading
// them, so use Put for anything else.
func (s *Store) PutNew(ctx context.Context, prefix string, data []byte) (events.ArtifactRef, error) {
	return s.put(ctx, refOf(s.bucket, prefix, data), data)
}

func refOf(bucket, prefix string, data []byte) events.ArtifactRef {
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	return events.ArtifactRef{Bucket: bucket, Name: prefix + "/" + digest, Size: int64(len(data)), SHA256: digest}
}

// put stores data as the object ref names.
func (s *Store) put(ctx context.Context, ref events.ArtifactRef, data []byte) (events.ArtifactRef, error) {
	// Storing the same content under its digest again is harmless, so a
	// put that timed out while the bucket's leader changed is retried.
	err := retryBriefly(ctx, bus.IsTransient, func() error {
		pctx, cancel := context.WithTimeout(ctx, objectTimeout)
		defer cancel()
		_, err := s.obj.PutBytes(pctx, ref.Name, data)
		return err
	})
	if err != nil {
		return events.ArtifactRef{}, fmt.Errorf("could not store artifact %s: %w", ref.Name, err)
	}
	return ref, nil
}

// objectTimeout bounds one object put or get (chunked, so longer than a
// plain request).
const objectTimeout = 30 * time.Second

// retryBriefly calls op until it succeeds or fails with an error retry
// does not accept, for at most about five seconds.
func retryBriefly(ctx context.Context, retry func(error) bool, op func() error) error {
	delay := 50 * time.Millisecond
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := op()
		if err == nil || !retry(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Second)
	}
}

// Get fetches the artifact and checks its size and digest. It returns an
// error wrapping ErrNotFound or ErrCorrupt.
func (s *Store) Get(ctx context.Context, ref events.ArtifactRef) ([]byte, error) {
	if ref.Bucket != s.bucket {
		return nil, fmt.Errorf("%w: bucket %q (want %q)", ErrNotFound, ref.Bucket, s.bucket)
	}
	// A reference is handed on only after its object was stored, so "not
	// found" can also be a replica of a cluster that has not caught up
	// yet (reads may be served by any replica): look again briefly before
	// calling the artifact lost.
	var data []byte
	err := retryBriefly(ctx, func(err error) bool {
		return errors.Is(err, jetstream.ErrObjectNotFound) || bus.IsTransient(err)
	}, func() error {
		gctx, cancel := context.WithTimeout(ctx, objectTimeout)
		defer cancel()
		var err error
		data, err = s.obj.GetBytes(gctx, ref.Name)
		return err
	})
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
