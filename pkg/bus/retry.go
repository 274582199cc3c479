package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/nats-io/nats.go/jetstream"
)

// RetryPolicy shapes Retry's waits: exponential from Initial to Max with
// 20% jitter. Zero fields take the defaults (200ms, 10s).
type RetryPolicy struct {
	Initial, Max time.Duration
	// Permanent says which errors no retry can cure (default: those
	// wrapping ErrInvalidConfig); Retry returns them at once.
	Permanent func(error) bool
}

// Retry calls op until it succeeds, returns a permanent error (by
// default one wrapping ErrInvalidConfig), or ctx ends. Every failure
// is logged with what was being done and reported to status (when not
// nil; status(nil) on success), so a readiness check can say why the
// process is not ready yet. It returns op's last error when ctx ends.
func Retry(ctx context.Context, log *slog.Logger, what string, p RetryPolicy, status func(error), op func(context.Context) error) error {
	if p.Initial <= 0 {
		p.Initial = 200 * time.Millisecond
	}
	if p.Max < p.Initial {
		p.Max = max(10*time.Second, p.Initial)
	}
	eb := backoff.NewExponentialBackOff()
	eb.InitialInterval, eb.MaxInterval, eb.MaxElapsedTime = p.Initial, p.Max, 0
	eb.RandomizationFactor = 0.2
	eb.Reset()
	report := func(err error) {
		if status != nil {
			status(err)
		}
	}
	for attempt := 1; ; attempt++ {
		err := op(ctx)
		if err == nil {
			report(nil)
			if attempt > 1 {
				log.Info(what+": done", "attempts", attempt)
			}
			return nil
		}
		if errors.Is(err, ErrInvalidConfig) || (p.Permanent != nil && p.Permanent(err)) {
			report(err)
			return err
		}
		if ctx.Err() != nil {
			report(err)
			return fmt.Errorf("%s: gave up after %d attempts: %w", what, attempt, err)
		}
		wait := eb.NextBackOff()
		report(fmt.Errorf("%s (attempt %d, retrying in %s): %w", what, attempt, wait.Round(time.Millisecond), err))
		log.Warn(what+" failed; retrying", "attempt", attempt, "retry_in", wait.Round(time.Millisecond).String(), "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			report(err)
			return fmt.Errorf("%s: gave up after %d attempts: %w", what, attempt, err)
		case <-t.C:
		}
	}
}

// ProvisionRetrying is Provision retried with backoff until it succeeds or
// ctx ends, each attempt bounded to 15s: on a fresh cluster the first
// attempts time out while JetStream elects its leaders, and services
// started together race to create the same streams (the loser finds them
// on its next attempt). Failures are logged and reported to status.
func ProvisionRetrying(ctx context.Context, log *slog.Logger, js jetstream.JetStream, t Topology, services []string, status func(error)) error {
	return Retry(ctx, log, "provisioning streams, consumers and buckets", RetryPolicy{}, status, func(ctx context.Context) error {
		actx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		return Provision(actx, js, t, services)
	})
}
