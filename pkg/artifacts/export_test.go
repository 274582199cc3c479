package artifacts

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// LookAgainFor sets how long s waits in all between the attempts of a
// put, and how long Get looks again for an object not found (a test
// shortens it to expose a replica that lags longer, or a put that gives
// up).
func LookAgainFor(s *Store, d time.Duration) { s.lookAgain = d }

// AttemptTimeoutFor sets how long one attempt of a put or a get of s may
// take (a test shortens it to fail an attempt against a server that does
// not answer quickly).
func AttemptTimeoutFor(s *Store, d time.Duration) { s.attempt = d }

// StillLost is s.stillLost: whether an object found without its chunks
// is lost, given the object info read (a test hands it the info of an
// object replaced since).
func StillLost(ctx context.Context, s *Store, info *jetstream.ObjectInfo, lost error) error {
	return s.stillLost(ctx, info, lost)
}

// ErrReplaced is errReplaced.
var ErrReplaced = errReplaced

// ReadEnded is readEnded.
var ReadEnded = readEnded
