package bus

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// transientCodes are the JetStream API errors of a cluster in transition:
// no meta or stream leader yet, a peer missing, an asset offline while it
// moves or catches up. They clear once the cluster has elected leaders.
var transientCodes = map[jetstream.ErrorCode]bool{
	10005: true, // JSClusterNoPeersErr: no suitable peers for placement (yet)
	10006: true, // JSClusterNotActiveErr
	10008: true, // JSClusterNotAvailErr: JetStream system temporarily unavailable
	10009: true, // JSClusterNotLeaderErr
	10023: true, // JSInsufficientResourcesErr: not enough peers known yet
	10118: true, // JSStreamOfflineErr
	10119: true, // JSConsumerOfflineErr
}

// IsTransient reports whether err is a failure that retrying cures on a
// healthy or recovering cluster: a request or publish that timed out or
// found no responder (a leader election, a server restarting), a
// connection being re-established, or a JetStream API error saying the
// cluster is temporarily unavailable. A cancelled context is not
// transient.
func IsTransient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	for _, e := range []error{
		context.DeadlineExceeded, nats.ErrTimeout, nats.ErrNoResponders, nats.ErrDisconnected,
		nats.ErrConnectionReconnecting, jetstream.ErrNoHeartbeat, jetstream.ErrJetStreamNotEnabled,
		jetstream.ErrJetStreamPublisherClosed, jetstream.ErrNoStreamResponse, nats.ErrNoStreamResponse,
	} {
		if errors.Is(err, e) {
			return true
		}
	}
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		return apiErr.Code == 503 || transientCodes[apiErr.ErrorCode]
	}
	// The object store reads an object's chunks through an ordered
	// consumer of the legacy API, whose errors are the core package's
	// APIError: the same codes, another type.
	var coreErr *nats.APIError
	if errors.As(err, &coreErr) {
		return coreErr.Code == 503 || transientCodes[jetstream.ErrorCode(coreErr.ErrorCode)]
	}
	return false
}

// RequestTimeout bounds one JetStream request (a KV read or write, a
// stream lookup, a publish) made on behalf of a handler. A handler's own
// context allows minutes (model calls, checks); a request lost with a
// server that died would otherwise wait that long for its reply, since
// JetStream applies its default timeout only to contexts without a
// deadline. Bounded, it fails fast and transiently (IsTransient) and is
// retried against the new leader.
const RequestTimeout = 5 * time.Second
