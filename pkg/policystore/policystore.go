// Package policystore keeps the policy documents operators store for
// single runs (`codali rao fork --policy`), so that a forked run is judged
// under the policy it was forked with. A document is stored under the run
// id and its digest (content-addressed) in the codali-policies bucket,
// which only the operator identity may write (pkg/natsauth); the run's
// request names it by digest (events.Options.Policy). The stored document
// is the policy's canonical form (policy.Policy.StableJSON), so its digest
// is the policy hash that tags the run's gate decisions and history
// (policy.Policy.Hash): Hash gives it from the request alone. An agent can put a
// digest in a request, but cannot store a document: a digest with no
// stored document, an altered document or an invalid one is refused
// (errors wrapping ErrRefused), never replaced by the configured policy.
package policystore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/nats-io/nats.go/jetstream"
)

// Errors of the package; match them with errors.Is.
var (
	// ErrRefused is wrapped by every reason a stored policy cannot be used.
	ErrRefused = errors.New("the run's policy is refused")
	// ErrMissing: no document is stored for the run under the digest.
	ErrMissing = fmt.Errorf("%w: not stored", ErrRefused)
	// ErrDigest: the stored document does not have the digest.
	ErrDigest = fmt.Errorf("%w: digest mismatch", ErrRefused)
	// ErrInvalid: the stored document is not a valid policy.
	ErrInvalid = fmt.Errorf("%w: invalid", ErrRefused)
)

// MaxBytes bounds a stored document.
const MaxBytes = 256 << 10

// Digest is the digest a request names a document by.
func Digest(doc []byte) string {
	sum := sha256.Sum256(doc)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// key is where a run's document with digest is stored.
func key(runID, digest string) string {
	return runID + "." + digest[len("sha256:"):]
}

// Hash is the policy hash (policy.Policy.Hash) of the run whose request
// names ref: a stored document is canonical, so its digest is that hash.
func Hash(ref events.PolicyRef) string {
	return strings.TrimPrefix(ref.Digest, "sha256:")
}

// Put validates doc as a policy and stores its canonical form for runID;
// it returns the digest the run's request must name. Storing needs the
// operator identity.
func Put(ctx context.Context, js jetstream.JetStream, runID string, doc []byte) (string, error) {
	if err := events.ValidateRunID(runID); err != nil {
		return "", err
	}
	if len(doc) > MaxBytes {
		return "", fmt.Errorf("policy document: %d bytes (max %d)", len(doc), MaxBytes)
	}
	p, err := policy.Parse(doc, policy.FormatAuto)
	if err != nil {
		return "", err
	}
	canonical := p.StableJSON()
	kv, err := js.KeyValue(ctx, events.BucketPolicies)
	if err != nil {
		return "", fmt.Errorf("could not open bucket %s: %w", events.BucketPolicies, err)
	}
	digest := Digest(canonical)
	if _, err := kv.Put(ctx, key(runID, digest), canonical); err != nil {
		return "", fmt.Errorf("could not store the policy (it needs the operator identity): %w", err)
	}
	return digest, nil
}

// Load returns the policy stored for runID under ref, verified: its bytes
// have ref's digest, it parses, and it is in canonical form (its hash is
// the digest, so the history's policy hash names it). Errors wrap ErrRefused (ErrMissing,
// ErrDigest, ErrInvalid) when the run cannot be judged under it; any other
// error is the store's (worth retrying).
func Load(ctx context.Context, js jetstream.JetStream, runID string, ref events.PolicyRef) (*policy.Policy, error) {
	doc, err := Get(ctx, js, runID, ref)
	if err != nil {
		return nil, err
	}
	p, err := policy.Parse(doc, policy.FormatAuto)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if p.Hash() != Hash(ref) {
		return nil, fmt.Errorf("%w: the stored document is not the policy's canonical form (hash %s)", ErrDigest, p.Hash())
	}
	return p, nil
}

// Get returns the document stored for runID under ref, its digest
// verified (errors as Load's, but the document is not parsed).
func Get(ctx context.Context, js jetstream.JetStream, runID string, ref events.PolicyRef) ([]byte, error) {
	if err := ref.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	kv, err := js.KeyValue(ctx, events.BucketPolicies)
	if err != nil {
		return nil, fmt.Errorf("could not open bucket %s: %w", events.BucketPolicies, err)
	}
	k := key(runID, ref.Digest)
	e, err := kv.Get(ctx, k)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		// Any replica may answer a read, and the operator stores a run's
		// policy right before its request: one that has not applied it
		// yet must not end the run. Only the bucket's leader says it is
		// missing (a stored document never changes: its key is its digest).
		e, err = bus.LeaderGet(ctx, js, events.BucketPolicies, k)
	}
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, fmt.Errorf("%w: %s for run %s", ErrMissing, ref.Digest, runID)
	}
	if err != nil {
		return nil, fmt.Errorf("could not read the policy %s of run %s: %w", ref.Digest, runID, err)
	}
	if got := Digest(e.Value()); got != ref.Digest {
		return nil, fmt.Errorf("%w: stored %s, the request names %s", ErrDigest, got, ref.Digest)
	}
	return e.Value(), nil
}
