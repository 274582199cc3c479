package worker

import (
	"time"

	"github.com/cenkalti/backoff/v4"
)

// delay returns how long to wait before delivery number deliveries+1 after
// the deliveries-th failed: Initial*Multiplier^(deliveries-1), capped at Max,
// randomised by Jitter.
func (b Backoff) delay(deliveries uint64) time.Duration {
	eb := backoff.NewExponentialBackOff()
	eb.InitialInterval = b.Initial
	eb.MaxInterval = b.Max
	eb.Multiplier = b.Multiplier
	eb.RandomizationFactor = b.Jitter
	eb.MaxElapsedTime = 0
	eb.Reset()
	d := eb.NextBackOff()
	for i := uint64(1); i < deliveries && i < 64; i++ {
		d = eb.NextBackOff()
	}
	return d
}
