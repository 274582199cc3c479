package pmstate

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"github.com/codali-dev/codali/pkg/bus"
	"log/slog"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/codali-dev/codali/pkg/cognition"
)

// UpdateFunc computes the patches to apply to cur, the project's current
// state (a private copy the function may modify). It may be called several
// times within one Update, once per attempt, each time with fresh state, so
// it must not have side effects that cannot be repeated. A returned error
// aborts the Update. It must not update the same project through the same
// Store: the Store runs a project's updates one at a time, so that update
// would wait for the one calling it.
type UpdateFunc func(cur cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error)

// Result is the outcome of a successful Update.
type Result struct {
	// State is the project's state after the update (the current state when
	// nothing changed).
	State cognition.CognitionState
	// Rev is the KV revision (pm_rev) of State; 0 when the project has never
	// been written.
	Rev uint64
	// Diagnostics lists the ops of the final attempt that were skipped.
	Diagnostics []cognition.Diagnostic
	// Changed reports whether the update wrote a new state.
	Changed bool
}

// Update applies the patches computed by fn to the state of project, with
// optimistic concurrency: it reads state and revision, calls fn, applies the
// patches with cognition.Apply (bounding L1 memory when WithMaxL1Entries is
// set), validates the result and writes it with compare-and-set (Create when
// the project has no entry, Update at the read revision otherwise). When
// another writer got in between, the cycle starts over after a short
// jittered backoff. A Store runs its own updates of one project one at a
// time, so they do not race each other; other Stores (other processes)
// are ordered by the compare-and-set. Following its own write, a Store
// tries the next update on top of it without reading (see lastWrites):
// the compare-and-set rejects it if anyone wrote since, and an update
// that would change nothing there, or that fn refuses there, reads the
// current state (fn's error ends the update only on a state read). When nothing
// changed nothing is written and Result.Rev is the current revision.
//
// Errors: ErrInvalidProject for a bad project id, ErrNilUpdateFunc for a nil
// fn, fn's own error (wrapped), ErrCorruptState for an unreadable stored
// entry, ErrConflict (wrapping the last conflict) after the configured number
// of lost races, the context's error when ctx ends, and wrapped KV errors
// otherwise. Nothing is written when an error is returned.
func (s *Store) Update(ctx context.Context, project string, fn UpdateFunc) (Result, error) {
	key, err := ProjectKey(project)
	if err != nil {
		return Result{}, err
	}
	if fn == nil {
		return Result{}, ErrNilUpdateFunc
	}
	unlock, err := s.locks.lock(ctx, key)
	if err != nil {
		return Result{}, fmt.Errorf("could not update cognition state of project %q: %w", project, err)
	}
	defer unlock()
	var (
		res      Result
		attempts int
	)
	op := func() error {
		attempts++
		var (
			r   Result
			err error
		)
		if cur, rev, ok := s.lastState.get(key, cognition.CognitionState.Clone); ok && attempts == 1 {
			// Write on top of this Store's last write without reading;
			// what it would not change must be read to be known current.
			r, err = s.write(ctx, key, cur, rev, fn, true)
			switch {
			case errors.Is(err, errUnconfirmed):
				r, err = s.attempt(ctx, project, key, fn)
			case bus.IsConflict(err):
				s.lastState.missed(key)
			}
		} else {
			r, err = s.attempt(ctx, project, key, fn)
		}
		if err != nil {
			// A lost race, or a bucket leader being elected on a cluster
			// (the write timed out or found no leader): read again and
			// retry. The update functions are idempotent, so a write that
			// did land before its reply was lost is not applied twice.
			if bus.IsConflict(err) || bus.IsTransient(err) && ctx.Err() == nil {
				return err
			}
			return backoff.Permanent(err)
		}
		res = r
		return nil
	}
	notify := func(err error, wait time.Duration) {
		s.log.DebugContext(ctx, "cognition state update conflict, retrying",
			slog.String("project", project), slog.Int("attempt", attempts), slog.Duration("wait", wait), slog.Any("error", err))
	}
	if err := backoff.RetryNotify(op, s.newBackoff(ctx), notify); err != nil {
		if bus.IsConflict(err) {
			return Result{}, fmt.Errorf("%w: project %q, %d attempts: %w", ErrConflict, project, attempts, err)
		}
		return Result{}, fmt.Errorf("could not update cognition state of project %q: %w", project, err)
	}
	return res, nil
}

// errUnconfirmed: an update written on top of the last write changes
// nothing or is refused, so whether that is still the current state must
// be read.
var errUnconfirmed = errors.New("nothing to write on top of the last write")

// attempt runs one read-apply-write cycle.
func (s *Store) attempt(ctx context.Context, project, key string, fn UpdateFunc) (Result, error) {
	cur, rev, err := s.get(ctx, project, key)
	if err != nil {
		return Result{}, err
	}
	s.lastState.read(key, rev)
	return s.write(ctx, key, cur, rev, fn, false)
}

// write applies fn's patches to cur, the state at revision rev, and
// writes the result with compare-and-set at rev. onLast says cur is this
// Store's last write rather than a read: a result that changes nothing,
// and fn's error, then fail with errUnconfirmed, since cur may no longer
// be current.
func (s *Store) write(ctx context.Context, key string, cur cognition.CognitionState, rev uint64, fn UpdateFunc, onLast bool) (Result, error) {
	goalOps, memOps, err := fn(cur.Clone())
	if err != nil {
		if onLast {
			// cur may not be current: only a refusal of the state read
			// ends the update.
			return Result{}, errUnconfirmed
		}
		return Result{}, fmt.Errorf("update function failed: %w", err)
	}
	if s.maxL1Entries > 0 {
		memOps = cognition.BoundMemory(cur, memOps, s.maxL1Entries)
	}
	next, diags := cognition.Apply(cur, goalOps, memOps)
	if next.Revision == cur.Revision {
		if onLast {
			return Result{}, errUnconfirmed
		}
		return Result{State: cur, Rev: rev, Diagnostics: diags}, nil
	}
	data, err := cognition.EncodeState(next)
	if err != nil {
		return Result{}, fmt.Errorf("refusing to write: %w", err)
	}
	var newRev uint64
	if rev == 0 {
		wctx, cancel := context.WithTimeout(ctx, bus.RequestTimeout)
		defer cancel()
		newRev, err = s.kv.Create(wctx, key, data)
	} else {
		wctx, cancel := context.WithTimeout(ctx, bus.RequestTimeout)
		defer cancel()
		newRev, err = s.kv.Update(wctx, key, data, rev)
	}
	if err != nil {
		return Result{}, fmt.Errorf("could not write revision after %d: %w", rev, err)
	}
	s.decoded.keep(key, sha256.Sum256(data), next)
	s.lastState.wrote(key, newRev, asDecoded(next))
	return Result{State: next, Rev: newRev, Diagnostics: diags, Changed: true}, nil
}

// newBackoff builds the retry policy: jittered exponential waits, at most
// maxAttempts attempts in total, stopped early when ctx ends.
func (s *Store) newBackoff(ctx context.Context) backoff.BackOff {
	exp := backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(s.initialBackoff),
		backoff.WithMaxInterval(s.maxBackoff),
		backoff.WithRandomizationFactor(0.5),
		backoff.WithMultiplier(2),
		backoff.WithMaxElapsedTime(0),
	)
	return backoff.WithContext(backoff.WithMaxRetries(exp, uint64(s.maxAttempts-1)), ctx)
}
