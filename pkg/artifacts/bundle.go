package artifacts

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/codali-dev/codali/pkg/events"
)

// BundleName is the document name of a stored context bundle: objects are
// named <run>/<attempt>/context_bundle.json/<sha256>.
const BundleName = "context_bundle.json"

// StoreBundle stores the bundle as <run>/<attempt>/context_bundle.json
// (content-addressed: the object name ends with the digest) and
// returns its reference, plus the bundle itself when its JSON is at most
// threshold bytes (to be inlined in the event) or nil when it is larger.
func (s *Store) StoreBundle(ctx context.Context, runID string, attempt int, b *events.ContextBundle, threshold int) (*events.ContextBundle, *events.ArtifactRef, error) {
	raw, err := json.Marshal(b)
	if err != nil {
		return nil, nil, fmt.Errorf("could not encode context bundle: %w", err)
	}
	ref, err := s.Put(ctx, runID+"/"+strconv.Itoa(attempt)+"/"+BundleName, raw)
	if err != nil {
		return nil, nil, err
	}
	if len(raw) <= threshold {
		return b, &ref, nil
	}
	return nil, &ref, nil
}

// LoadBundle returns the inline bundle, or fetches and decodes the
// referenced one.
func (s *Store) LoadBundle(ctx context.Context, b *events.ContextBundle, ref *events.ArtifactRef) (*events.ContextBundle, error) {
	if b != nil {
		return b, nil
	}
	if ref == nil {
		return &events.ContextBundle{}, nil
	}
	raw, err := s.Get(ctx, *ref)
	if err != nil {
		return nil, err
	}
	var out events.ContextBundle
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("%w: bundle %s: %w", ErrCorrupt, ref.Name, err)
	}
	return &out, nil
}

// OffloadDiff moves a change's diff to the store when it is larger than
// threshold bytes, replacing Diff with DiffRef.
func (s *Store) OffloadDiff(ctx context.Context, runID string, attempt int, ch *events.Change, threshold int) error {
	if len(ch.Diff) <= threshold {
		return nil
	}
	ref, err := s.Put(ctx, runID+"/"+strconv.Itoa(attempt)+"/diff", []byte(ch.Diff))
	if err != nil {
		return err
	}
	ch.Diff, ch.DiffRef = "", &ref
	return nil
}

// LoadDiff returns the change's diff, fetching it when it was offloaded.
func (s *Store) LoadDiff(ctx context.Context, ch events.Change) (string, error) {
	if ch.DiffRef == nil {
		return ch.Diff, nil
	}
	raw, err := s.Get(ctx, *ch.DiffRef)
	if err != nil {
		return "", err
	}
	return string(raw), nil
}
