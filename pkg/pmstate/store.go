package pmstate

import (
	"context"
	"errors"
	"fmt"
	"github.com/codali-dev/codali/pkg/bus"
	"log/slog"
	"time"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/nats-io/nats.go/jetstream"
)

// Defaults of a Store.
const (
	DefaultMaxAttempts    = 25
	DefaultInitialBackoff = 2 * time.Millisecond
	DefaultMaxBackoff     = 100 * time.Millisecond
)

// Store reads and updates per-project cognition states in one KV bucket. It
// is safe for concurrent use, also across processes sharing the bucket.
type Store struct {
	kv             jetstream.KeyValue
	replica        jetstream.KeyValue
	maxAttempts    int
	maxL1Entries   int
	initialBackoff time.Duration
	maxBackoff     time.Duration
	log            *slog.Logger
	decoded        decodedStates
	learned        decodedCache[Learning]
	lastState      lastWrites[cognition.CognitionState]
	lastLearning   lastWrites[Learning]
	locks          keyLocks
}

// Option configures a Store.
type Option func(*Store)

// WithMaxAttempts bounds how many read-apply-write cycles Update runs before
// giving up with ErrConflict. Default DefaultMaxAttempts; must be >= 1.
func WithMaxAttempts(n int) Option { return func(s *Store) { s.maxAttempts = n } }

// WithMaxL1Entries bounds the L1 memory: every Update drops the oldest
// entries beyond n (see cognition.BoundMemory) in the same revision step.
// 0, the default, means unbounded; negative values are invalid.
func WithMaxL1Entries(n int) Option { return func(s *Store) { s.maxL1Entries = n } }

// WithBackoff sets the first and the largest wait between conflicting
// attempts; waits grow exponentially with ±50% jitter. Both must be > 0 and
// initial <= maxWait.
func WithBackoff(initial, maxWait time.Duration) Option {
	return func(s *Store) { s.initialBackoff, s.maxBackoff = initial, maxWait }
}

// WithReplicaReads makes Learning read through kv, which any replica of
// the bucket may answer (kv.Get: a direct get), while the updates read
// through New's KeyValue. Learning only informs a prompt, so a replica
// one write behind costs at most the newest lesson, and a direct get is
// cheaper than a leader's message get (which returns the value base64
// in JSON). Default: New's KeyValue.
func WithReplicaReads(kv jetstream.KeyValue) Option { return func(s *Store) { s.replica = kv } }

// WithLogger sets the logger for retries (debug level). Default: discard.
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.log = l } }

// New returns a Store over kv. A nil kv or an invalid option value fails with
// ErrInvalidConfig.
func New(kv jetstream.KeyValue, opts ...Option) (*Store, error) {
	s := &Store{
		kv:             kv,
		maxAttempts:    DefaultMaxAttempts,
		initialBackoff: DefaultInitialBackoff,
		maxBackoff:     DefaultMaxBackoff,
		log:            slog.New(slog.DiscardHandler),
	}
	for _, o := range opts {
		o(s)
	}
	var errs []error
	if s.kv == nil {
		errs = append(errs, fmt.Errorf("%w: nil KeyValue", ErrInvalidConfig))
	}
	if s.maxAttempts < 1 {
		errs = append(errs, fmt.Errorf("%w: max attempts %d < 1", ErrInvalidConfig, s.maxAttempts))
	}
	if s.maxL1Entries < 0 {
		errs = append(errs, fmt.Errorf("%w: max L1 entries %d < 0", ErrInvalidConfig, s.maxL1Entries))
	}
	if s.initialBackoff <= 0 || s.maxBackoff < s.initialBackoff {
		errs = append(errs, fmt.Errorf("%w: backoff %v..%v", ErrInvalidConfig, s.initialBackoff, s.maxBackoff))
	}
	if s.log == nil {
		errs = append(errs, fmt.Errorf("%w: nil logger", ErrInvalidConfig))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// Get returns the cognition state of project and its KV revision (pm_rev).
// A project without an entry (never written, deleted or purged) yields
// cognition.NewState() and revision 0 without error. An invalid project id
// fails with ErrInvalidProject, an undecodable or invalid entry with
// ErrCorruptState, and KV errors are wrapped.
func (s *Store) Get(ctx context.Context, project string) (cognition.CognitionState, uint64, error) {
	key, err := ProjectKey(project)
	if err != nil {
		return cognition.CognitionState{}, 0, err
	}
	return s.get(ctx, project, key)
}

func (s *Store) get(ctx context.Context, project, key string) (cognition.CognitionState, uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, bus.RequestTimeout)
	defer cancel()
	entry, err := s.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return cognition.NewState(), 0, nil
	}
	if err != nil {
		return cognition.CognitionState{}, 0, fmt.Errorf("could not read cognition state of project %q: %w", project, err)
	}
	st, err := s.decoded.decode(key, entry.Value())
	if err != nil {
		return cognition.CognitionState{}, 0, fmt.Errorf("%w: project %q at revision %d: %w", ErrCorruptState, project, entry.Revision(), err)
	}
	return st, entry.Revision(), nil
}
