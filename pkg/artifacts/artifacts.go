// Package artifacts keeps large run artifacts (context bundles, diffs) in
// a JetStream object store bucket, so events stay small and carry only a
// reference with the artifact's size and SHA-256.
package artifacts

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrCorrupt: an artifact's content does not match its reference.
var ErrCorrupt = errors.New("artifact does not match its reference")

// ErrNotFound: the referenced artifact does not exist.
var ErrNotFound = errors.New("artifact not found")

// ErrLost: the artifact's meta is stored but its content is not (its
// chunks expired with the bucket's TTL, were purged or deleted): it
// cannot be read, now or later.
var ErrLost = errors.New("artifact lost: its content is no longer stored")

// ErrNotReplicated: the artifact is stored, but the replica that answered
// has not applied it yet (it is catching up); transient, unlike
// ErrNotFound.
var ErrNotReplicated = errors.New("artifact stored, but not yet on the replica that answered")

// IsLost reports whether err means a referenced artifact is gone
// (ErrNotFound, ErrLost) or damaged (ErrCorrupt): retrying cannot help,
// so callers treat it as permanent.
func IsLost(err error) bool {
	return errors.Is(err, ErrNotFound) || errors.Is(err, ErrLost) || errors.Is(err, ErrCorrupt)
}

// Store puts and gets artifacts. Safe for concurrent use.
type Store struct {
	obj    jetstream.ObjectStore
	js     jetstream.JetStream
	stream jetstream.Stream // the bucket's
	bucket string
	// lookAgain bounds the waits between the attempts of a put that
	// failed transiently, and how long Get looks again for an object not
	// found (see retryBriefly).
	lookAgain time.Duration
	// attempt bounds one attempt of a put or a get (see timeoutFor).
	attempt time.Duration
}

// lookAgain is the default of Store.lookAgain.
const lookAgain = 5 * time.Second

// Open returns the store over the artifacts bucket, which must exist
// (bus.Provision creates it).
func Open(ctx context.Context, js jetstream.JetStream) (*Store, error) {
	obj, err := js.ObjectStore(ctx, events.BucketArtifacts)
	if err != nil {
		return nil, fmt.Errorf("could not open object store %s: %w", events.BucketArtifacts, err)
	}
	st, err := js.Stream(ctx, "OBJ_"+events.BucketArtifacts)
	if err != nil {
		return nil, fmt.Errorf("could not open object store %s: %w", events.BucketArtifacts, err)
	}
	return &Store{obj: obj, js: js, stream: st, bucket: events.BucketArtifacts, lookAgain: lookAgain, attempt: objectTimeout}, nil
}

// Put stores data content-addressed under prefix ("<prefix>/<sha256>")
// and returns its reference. The name is derived from the content, so an
// object is never replaced by different bytes: a redelivered handler that
// produces other content stores a second object, and every reference
// already handed on stays valid. Storing identical content again is a
// no-op once the stored object is found whole (see whole): a name a
// failed put left without its chunks is stored again.
func (s *Store) Put(ctx context.Context, prefix string, data []byte) (events.ArtifactRef, error) {
	ref := refOf(s.bucket, prefix, data)
	// A replica that has not applied an object just stored says it is
	// missing: the same bytes are stored again under the same name, which
	// changes no reference.
	ictx, cancel := context.WithTimeout(ctx, s.timeoutFor(0))
	info, err := s.obj.GetInfo(ictx, ref.Name)
	cancel()
	if err == nil && info.Size == uint64(len(data)) {
		whole, err := s.whole(ctx, info, data)
		switch {
		case err != nil:
			return events.ArtifactRef{}, fmt.Errorf("could not store artifact %s: %w", ref.Name, err)
		case whole:
			return ref, nil
		}
		// A put that failed half way left the meta without its chunks:
		// stored again (nothing left to purge under a reader).
	}
	// Nothing (readable) to keep, or the look-up failed: written like new
	// content, which is safe over whatever the name holds.
	return s.putNew(ctx, ref, data)
}

// whole reports whether the stored object info describes is data, chunks
// included: its digest is data's, and the bucket's leader has its
// chunks, all of them (the library's put, of an older release or another
// client, can leave the meta alone: it publishes the meta before its
// chunks are acknowledged, and purges them when one is refused; the
// bucket's TTL, a purge or a delete can remove some or all). The leader is asked
// because a replica that lags may not have them yet: for one chunk, the
// chunk; for more, how many the chunks' subject holds.
func (s *Store) whole(ctx context.Context, info *jetstream.ObjectInfo, data []byte) (bool, error) {
	if info.Digest != digestOf(data) || !validNUID(info.NUID) {
		return false, nil
	}
	var err error
	switch info.Chunks {
	case 0:
		return info.Size == 0, nil
	case 1:
		_, err = bus.LeaderLastMsg(ctx, s.js, "OBJ_"+s.bucket, chunkSubject(s.bucket, info.NUID))
	default:
		err = s.chunksStored(ctx, info)
	}
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound), errors.Is(err, ErrLost):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

// digestOf is the object store's digest of data: "SHA-256=" and the
// URL-safe base64 of its SHA-256.
func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "SHA-256=" + base64.URLEncoding.EncodeToString(sum[:])
}

// PutNew stores data like Put, without first looking whether it is stored
// already: a round trip less, for content that is new by construction
// (it carries the time it was made, as a model exchange's record does).
// Storing content that is there already replaces the object with an
// equal one in new chunks (the old ones are left to the bucket's TTL).
func (s *Store) PutNew(ctx context.Context, prefix string, data []byte) (events.ArtifactRef, error) {
	return s.putNew(ctx, refOf(s.bucket, prefix, data), data)
}

// putNew stores data as the object ref names with putObject, retrying an
// attempt that failed transiently (it timed out while the bucket's
// leader changed, or the server did not answer): each attempt writes new
// chunks and only then their meta, so no attempt, retried or given up,
// leaves a meta whose chunks are missing. Storing the same content under
// its digest again is harmless.
func (s *Store) putNew(ctx context.Context, ref events.ArtifactRef, data []byte) (events.ArtifactRef, error) {
	err := retryBriefly(ctx, s.lookAgain, false, bus.IsTransient, func() error {
		pctx, cancel := context.WithTimeout(ctx, s.timeoutFor(ref.Size))
		defer cancel()
		return s.putObject(pctx, ref, data)
	})
	if err != nil {
		return events.ArtifactRef{}, fmt.Errorf("could not store artifact %s: %w", ref.Name, err)
	}
	return ref, nil
}

func refOf(bucket, prefix string, data []byte) events.ArtifactRef {
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	return events.ArtifactRef{Bucket: bucket, Name: prefix + "/" + digest, Size: int64(len(data)), SHA256: digest}
}

// objectTimeout is the default of Store.attempt: one object put or get
// (chunked, so longer than a plain request).
const objectTimeout = 30 * time.Second

// timeoutFor bounds one attempt to put or get an object of size bytes:
// one of a single chunk is two plain requests, bounded like any
// (bus.RequestTimeout), so a put or read that a server does not answer
// is tried again sooner; a larger one gets the store's attempt timeout.
func (s *Store) timeoutFor(size int64) time.Duration {
	if size <= chunkSize {
		return min(s.attempt, bus.RequestTimeout)
	}
	return s.attempt
}

// retryBriefly calls op until it succeeds, fails with an error retry does
// not accept, or ctx ends, waiting between attempts with jittered
// exponential backoff (50 ms doubling up to 1 s) for at most within in
// all. Only the waits count: an attempt that failed only when its own
// timeout ended (a server that did not answer) is retried like one
// refused at once, so a put's attempts are bounded by the caller's
// context and by their number, not by how long the first took. A read
// is not worth that wait (the event is handled again later): with
// sinceStart, no attempt starts once within has passed since the first.
func retryBriefly(ctx context.Context, within time.Duration, sinceStart bool, retry func(error) bool, op func() error) error {
	b := backoff.NewExponentialBackOff(backoff.WithInitialInterval(50*time.Millisecond),
		backoff.WithMaxInterval(time.Second), backoff.WithMaxElapsedTime(0))
	start := time.Now()
	var waited time.Duration
	for {
		err := op()
		if err == nil || !retry(err) || ctx.Err() != nil {
			return err
		}
		wait := b.NextBackOff()
		if waited += wait; waited > within || (sinceStart && time.Since(start)+wait > within) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}
