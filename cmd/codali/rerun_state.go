package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/pmstate"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/nats-io/nats.go/jetstream"
)

// projectSeed is the project state a rerun starts from: the value of the
// project's key as the recorded run found it (nil: no state yet).
type projectSeed struct {
	key   string
	value []byte
	// note says when the state could not be recovered exactly.
	note string
}

// projectStateAt recovers what the run started with from the project-state
// bucket: the project's cognition state and its learning record (golden
// examples, failure summaries), each as the last revision of its key before
// the first revision the run's history records (pm_rev). The bucket keeps a
// few revisions per key; when the one needed is gone the rerun starts
// without it, and the seed's note says so.
func projectStateAt(ctx context.Context, js jetstream.JetStream, project string, evs []rao.Event) ([]projectSeed, error) {
	if project == "" {
		return nil, nil
	}
	stateKey, err := pmstate.ProjectKey(project)
	if err != nil {
		return nil, err
	}
	learnKey, err := pmstate.LearningKey(project)
	if err != nil {
		return nil, err
	}
	var first uint64
	for _, ev := range evs {
		if n, err := strconv.ParseUint(ev.Meta.PMRev, 10, 64); err == nil && n > 0 {
			first = n
			break
		}
	}
	kv, err := js.KeyValue(ctx, events.BucketPMState)
	if err != nil {
		return nil, fmt.Errorf("could not open bucket %s: %w", events.BucketPMState, err)
	}
	var seeds []projectSeed
	for _, k := range []struct{ key, what string }{{stateKey, "project state"}, {learnKey, "project's learning record"}} {
		seed, err := keyAt(ctx, kv, k.key, k.what, first)
		if err != nil {
			return nil, err
		}
		seeds = append(seeds, seed)
	}
	return seeds, nil
}

// keyAt is the value of key before bucket revision first (its current
// value when first is 0: the run changed nothing in the bucket).
func keyAt(ctx context.Context, kv jetstream.KeyValue, key, what string, first uint64) (projectSeed, error) {
	seed := projectSeed{key: key}
	if first == 0 {
		e, err := kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return seed, nil
		}
		if err != nil {
			return seed, fmt.Errorf("could not read the %s: %w", what, err)
		}
		seed.value = e.Value()
		return seed, nil
	}
	hist, err := kv.History(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrNoKeysFound) {
		return seed, nil // never written: the run started without it
	}
	if err != nil {
		return seed, fmt.Errorf("could not read the %s's history: %w", what, err)
	}
	var before jetstream.KeyValueEntry
	for _, e := range hist {
		if e.Revision() < first {
			before = e
		}
	}
	switch {
	case before != nil && before.Operation() == jetstream.KeyValuePut:
		seed.value = before.Value()
	case before != nil:
		// Deleted or purged before the run: it started without it.
	case len(hist) > 0 && hist[0].Revision() > first && len(hist) >= pmHistory:
		seed.note = "the " + what + " the run started with is no longer kept: the rerun starts without it"
	}
	return seed, nil
}

// pmHistory is how many revisions per key the project-state bucket keeps
// (bus.Provision).
const pmHistory = 16
