package raostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go/jetstream"
)

// StreamName is the name of the JetStream stream holding RAO histories.
const StreamName = events.StreamRAO

// Subject returns the subject of run runID's events: rao.<run_id>.
func Subject(runID string) string { return events.RAOSubject(runID) }

// Defaults shared with bus.Provision, so that both leave the stream with
// the same configuration.
const (
	defaultDuplicates = 10 * time.Minute
	defaultMaxMsgSize = 8 << 20
)

// StreamConfig sets the tunable limits of the RAO stream.
type StreamConfig struct {
	// Replicas is the number of stream replicas; 0 means 1.
	Replicas int
	// MaxAge drops messages older than this; 0 keeps them forever. It cuts
	// histories anywhere (not at checkpoints), so set it well above a
	// run's lifetime and prefer Store.Compact for trimming live runs.
	MaxAge time.Duration
	// MaxBytes caps the stream's size, dropping the oldest messages; 0 is
	// unlimited. The same caveat as MaxAge applies.
	MaxBytes int64
	// Storage is file (the zero value) or memory storage.
	Storage jetstream.StorageType
	// Duplicates is the window in which a repeated message ID is rejected
	// as a duplicate; 0 means 10 minutes (or MaxAge if that is shorter).
	Duplicates time.Duration
	// MaxMsgSize is the largest event accepted, in bytes; 0 means 8 MiB.
	MaxMsgSize int32
}

// Validate returns an error wrapping ErrInvalidConfig for negative or
// out-of-range values.
func (c StreamConfig) Validate() error {
	var errs []error
	if c.Replicas < 0 || c.Replicas > 5 {
		errs = append(errs, fmt.Errorf("%w: replicas %d not in 0..5", ErrInvalidConfig, c.Replicas))
	}
	if c.MaxAge < 0 || c.MaxBytes < 0 || c.Duplicates < 0 || c.MaxMsgSize < 0 {
		errs = append(errs, fmt.Errorf("%w: limits must not be negative", ErrInvalidConfig))
	}
	if c.Storage != jetstream.FileStorage && c.Storage != jetstream.MemoryStorage {
		errs = append(errs, fmt.Errorf("%w: unknown storage type %d", ErrInvalidConfig, c.Storage))
	}
	return errors.Join(errs...)
}

// jsConfig returns the JetStream configuration of the RAO stream.
//
// Design: subjects rao.>; limits retention with discard-old; no per-subject
// message limit (compaction cuts only at checkpoints, a server-side limit
// would cut anywhere); DenyDelete so single events cannot be removed from
// the middle of a history through the API; purge stays allowed because
// Store.Compact needs it (a purge that does not end at a checkpoint shows
// in rao.Verify as a missing baseline).
func (c StreamConfig) jsConfig() jetstream.StreamConfig {
	replicas := c.Replicas
	if replicas == 0 {
		replicas = 1
	}
	maxBytes := c.MaxBytes
	if maxBytes == 0 {
		maxBytes = -1
	}
	dups := c.Duplicates
	if dups == 0 {
		dups = defaultDuplicates
		if c.MaxAge > 0 && c.MaxAge < dups {
			dups = c.MaxAge
		}
	}
	maxMsg := c.MaxMsgSize
	if maxMsg == 0 {
		maxMsg = defaultMaxMsgSize
	}
	return jetstream.StreamConfig{
		Name:              StreamName,
		Description:       "Codali audit history (RAO)",
		Subjects:          []string{events.SubjectRAOAll},
		Retention:         jetstream.LimitsPolicy,
		Discard:           jetstream.DiscardOld,
		MaxAge:            c.MaxAge,
		MaxBytes:          maxBytes,
		MaxMsgs:           -1,
		MaxMsgsPerSubject: -1,
		Storage:           c.Storage,
		Replicas:          replicas,
		Duplicates:        dups,
		MaxMsgSize:        maxMsg,
		DenyDelete:        true,
		DenyPurge:         false,
	}
}

// EnsureStream creates the RAO stream, or updates it to cfg when it exists
// (idempotent). It returns an error wrapping ErrInvalidConfig for a bad
// cfg, or the server's error (for instance when changing the storage type
// of an existing stream).
func EnsureStream(ctx context.Context, js jetstream.JetStream, cfg StreamConfig) (jetstream.Stream, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s, err := js.CreateOrUpdateStream(ctx, cfg.jsConfig())
	if err != nil {
		return nil, fmt.Errorf("could not create or update stream %s: %w", StreamName, err)
	}
	return s, nil
}
