package audit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/codali-dev/codali/pkg/policystore"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/redact"
)

// Store is where histories live (raostore.Store over the RAO stream).
type Store interface {
	// Load returns a run's events and the stream sequence of its last one
	// (0 when it has none).
	Load(ctx context.Context, runID string) ([]rao.Event, uint64, error)
	// LastSeq returns the stream sequence of the run's last event (0 when
	// it has none), without reading the history.
	LastSeq(ctx context.Context, runID string) (uint64, error)
	// AppendBatch stores the sealed events (one or more, consecutive, of
	// one run) if the run's last stored message still has sequence
	// expected, and returns the stream sequence of the last one.
	AppendBatch(ctx context.Context, evs []rao.Sealed, expected uint64) (uint64, error)
	// Compact removes the run's events before firstKeptSeq (an event seq).
	Compact(ctx context.Context, runID string, firstKeptSeq uint64) error
}

// Recorder appends state changes to run histories. It is safe for
// concurrent use; concurrent writers to one run are serialised by the
// store's expected-sequence check (the loser gets an error and retries).
type Recorder struct {
	// Store holds the histories.
	Store Store
	// CheckpointEvery is the snapshot interval (default 10).
	CheckpointEvery int
	// MaxEvents caps a history (default 200); older events are compacted
	// to a checkpoint boundary.
	MaxEvents int
	// PolicyHash and ContractHash tag every event.
	PolicyHash, ContractHash string
	// Redactor scrubs secrets from every state before it is recorded.
	Redactor *redact.Redactor
	// Now stamps events.
	Now func() time.Time
	// CachedRuns bounds how many runs in progress the recorder keeps in
	// memory (their history, state and redaction; default 1024); past it
	// the least recently recorded run is dropped and reloaded when its
	// next event comes.
	CachedRuns int
	// CachedStateBytes bounds the same cache by the encoded size of the
	// runs' states (default 64 MiB; the cache holds a few times that:
	// each state decoded and as trees of its parts, and the histories);
	// a run whose state alone is larger is not kept.
	CachedStateBytes int

	// compressors lend the runs' chains their snapshot compressors.
	compressors rao.Compressors

	// cache keeps the histories of runs in progress, so an event does not
	// reread its run's whole history; an entry is used only while the
	// stream's last sequence for the run still matches it.
	cache historyCache
}

// load returns the run's history and a chain positioned after it: from the
// cache, and otherwise from the store (replaying the state). The cache is
// not checked against the stream first: every append carries the cached
// last sequence as its expected one, so if another writer appended
// meanwhile the append is refused (a conflict), and since a cache entry
// is taken out while in use and put back only after a fully successful
// record, the caller's retry reloads. A concurrent caller on the same run
// reloads instead of sharing an entry.
func (r *Recorder) load(ctx context.Context, runID string) (cachedHistory, error) {
	if c, ok := r.cache.take(runID); ok {
		return c, nil
	}
	return r.loadStored(ctx, runID)
}

// Preload reads the run's history into the cache unless it is there
// already, so that a caller can make that read at the same time as others
// of its own before RecordChange; it must not race a RecordChange of the
// same run. An entry the cache does not keep is read again by
// RecordChange.
func (r *Recorder) Preload(ctx context.Context, runID string) error {
	if r.cache.has(runID) {
		return nil
	}
	c, err := r.loadStored(ctx, runID)
	if err != nil {
		return err
	}
	r.cache.put(runID, c, r.CachedRuns, r.CachedStateBytes)
	return nil
}

// Cached reports whether the run's history is in the cache (RecordChange
// will not read the store for it, unless another writer appended since).
func (r *Recorder) Cached(runID string) bool { return r.cache.has(runID) }

// loadStored reads the run's history from the store and replays it.
func (r *Recorder) loadStored(ctx context.Context, runID string) (cachedHistory, error) {
	history, lastSeq, err := r.Store.Load(ctx, runID)
	if err != nil {
		return cachedHistory{}, fmt.Errorf("could not load history of %s: %w", runID, err)
	}
	chain, err := rao.Resume(rao.Builder{RunID: runID, CheckpointEvery: r.CheckpointEvery, Compressors: &r.compressors}, history)
	if err != nil {
		return cachedHistory{}, fmt.Errorf("could not replay history of %s: %w", runID, err)
	}
	return cachedHistory{events: history, lastSeq: lastSeq, chain: chain, enc: &stateEncoder{}, stateBytes: len(chain.State())}, nil
}

// Change is what RecordChange recorded.
type Change struct {
	// Prev is the run's status before the steps (StatusRunning for a new
	// run), so a caller can tell whether these steps ended it.
	Prev string
	// State is the state after the last step and History the run's
	// history (after compaction). State shares memory with the state the
	// recorder keeps for the run's next event: read it before recording
	// the run again, and do not modify it.
	State   State
	History []rao.Event
	// HeadHash is rao.Hash of the history's last event ("" when empty).
	HeadHash string
	// recorded is the state as the history holds it (redacted), which
	// the summary shows.
	recorded State
}

// Summary is SummaryOf the change's state as recorded (redacted, as the
// history holds it) and its history, with the head hash the recorder
// already computed.
func (c Change) Summary() Summary {
	return summarize(c.recorded, c.History, func(rao.Event) (string, error) { return c.HeadHash, nil })
}

// RecordChange is Record that also returns the run's status before the
// steps and the hash of its last event.
func (r *Recorder) RecordChange(ctx context.Context, runID string, steps []Step) (Change, error) {
	return r.record(ctx, runID, steps)
}

// Record applies the steps that are not yet recorded (by cause) to the
// run's state and appends one RaoEvent per step. It returns the state
// after the last step (see Change.State) and the history. Errors from the store
// (including expected-sequence conflicts) are returned wrapped: the caller
// retries, and steps already stored are then skipped.
func (r *Recorder) Record(ctx context.Context, runID string, steps []Step) (State, []rao.Event, error) {
	c, err := r.record(ctx, runID, steps)
	if err != nil {
		return State{}, nil, err
	}
	return c.State, c.History, nil
}

func (r *Recorder) record(ctx context.Context, runID string, steps []Step) (Change, error) {
	c, err := r.load(ctx, runID)
	if err != nil {
		return Change{}, err
	}
	history, lastSeq, chain := c.events, c.lastSeq, c.chain
	st, err := c.takeState(runID)
	if err != nil {
		return Change{}, fmt.Errorf("history of %s holds an unreadable state: %w", runID, err)
	}
	// st is the state the chain holds, decoded (kept for the run's next
	// event and summarised as it is) when it was taken from the entry or
	// decoded, or when redaction changed nothing in its last encoding
	// below (the chain then holds that encoding, canonicalised).
	keep := true
	before := st.Status
	refusing := false
	// The steps' events are built first and stored together (one atomic
	// batch where the stream allows it).
	var sealedEvs []rao.Sealed
	for _, step := range steps {
		// An event's first step carries its check (see Fold); steps may hold
		// several events (earlier events of the run folded first), each
		// judged against the state its predecessors left.
		if step.Check != nil {
			refusing = false
			if err := step.Check(&st); err != nil && step.Refuse != nil {
				step, refusing = step.Refuse(err), true
			}
		} else if refusing {
			continue
		}
		if st.HasCause(step.Cause) {
			continue
		}
		step.Mutate(&st)
		st.Causes = append(st.Causes, step.Cause)
		next, err := c.enc.encode(r.Redactor, st)
		if err != nil {
			return Change{}, err
		}
		c.stateBytes = len(next)
		keep = c.enc.clean
		meta := rao.Meta{PolicyHash: r.PolicyHash, ContractHash: r.ContractHash}
		if st.Request != nil && st.Request.Options.Policy != nil {
			// A run judged under a policy stored for it (a fork's
			// --policy): its events name that policy, not the configured one.
			meta.PolicyHash = policystore.Hash(*st.Request.Options.Policy)
		}
		if step.PolicyHash != "" {
			meta.PolicyHash = step.PolicyHash
		}
		if step.PMRev > 0 {
			meta.PMRev = strconv.FormatUint(step.PMRev, 10)
		}
		summary := step.Summary
		if r.Redactor != nil {
			summary = r.Redactor.String(summary)
		}
		sealed, err := chain.NextSealed(next, step.Kind, step.Cause, summary, meta, r.now())
		if err != nil {
			return Change{}, fmt.Errorf("could not build event for %s: %w", step.Cause, err)
		}
		sealedEvs = append(sealedEvs, sealed)
		history = append(history, sealed.Event())
	}
	if len(sealedEvs) > 0 {
		seq, err := r.Store.AppendBatch(ctx, sealedEvs, lastSeq)
		if err != nil {
			return Change{}, fmt.Errorf("could not append %s (%d event(s) in all): %w", sealedEvs[0].Event().ID, len(sealedEvs), err)
		}
		lastSeq = seq
	}
	if r.MaxEvents > 0 {
		if first, ok := rao.CompactionPoint(history, r.MaxEvents); ok {
			if err := r.Store.Compact(ctx, runID, first); err != nil {
				return Change{}, fmt.Errorf("could not compact history of %s: %w", runID, err)
			}
			for len(history) > 0 && history[0].Seq < first {
				history = history[1:]
			}
		}
	}
	// Every event in the chain hashes (it was built or decoded and
	// validated); as in SummaryOf, a failure would only leave the summary
	// without a head hash.
	head, _ := chain.LastHash()
	// The summary is made from the state as recorded: st itself when
	// redaction changed nothing in it, else the redacted state decoded
	// from the chain (which the run's next event starts from too).
	recorded := st
	if !keep {
		if recorded, err = DecodeState(runID, chain.State()); err != nil {
			return Change{}, fmt.Errorf("history of %s holds an unreadable state: %w", runID, err)
		}
	}
	if !st.Terminal() {
		c.events, c.lastSeq = history, lastSeq
		kept := recorded
		c.state = &kept
		r.cache.put(runID, c, r.CachedRuns, r.CachedStateBytes)
	}
	return Change{Prev: before, State: st, History: history, HeadHash: head, recorded: recorded}, nil
}

func (r *Recorder) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

// ErrRunEnded is returned by operator actions on a run that has ended.
var ErrRunEnded = errors.New("run has already ended")
