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

// projectStateAt recovers the project state the run started with: the last
// revision of the project's key before the first revision the run's
// history records (pm_rev). The bucket keeps a few revisions per key; when
// the one needed is gone the rerun starts from the oldest kept, and note
// says so.
func projectStateAt(ctx context.Context, js jetstream.JetStream, project string, evs []rao.Event) (projectSeed, error) {
	if project == "" {
		return projectSeed{}, nil
	}
	key, err := pmstate.ProjectKey(project)
	if err != nil {
		return projectSeed{}, err
	}
	seed := projectSeed{key: key}
	var first uint64
	for _, ev := range evs {
		if n, err := strconv.ParseUint(ev.Meta.PMRev, 10, 64); err == nil && n > 0 {
			first = n
			break
		}
	}
	kv, err := js.KeyValue(ctx, events.BucketPMState)
	if err != nil {
		return seed, fmt.Errorf("could not open bucket %s: %w", events.BucketPMState, err)
	}
	if first == 0 {
		// The run never changed the project state: it saw the current one.
		e, err := kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return seed, nil
		}
		if err != nil {
			return seed, fmt.Errorf("could not read the project state: %w", err)
		}
		seed.value = e.Value()
		return seed, nil
	}
	hist, err := kv.History(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrNoKeysFound) {
		seed.note = "the project state is gone: the rerun starts without one"
		return seed, nil
	}
	if err != nil {
		return seed, fmt.Errorf("could not read the project state's history: %w", err)
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
		// Deleted or purged before the run: it started without state.
	case len(hist) > 0 && hist[0].Revision() > first:
		seed.note = "the project state the run started with is no longer kept: the rerun starts without one"
	case len(hist) >= pmHistory:
		seed.note = "the project state's history may be incomplete: the rerun starts without one"
	}
	return seed, nil
}

// pmHistory is how many revisions per key the project-state bucket keeps
// (bus.Provision).
const pmHistory = 16
