package bus

import (
	"context"
	"fmt"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go/jetstream"
)

// CheckTimers reports an error wrapping ErrInvalidConfig when the work
// stream does not source the timers stream: park deadlines would then
// never fire (a stream provisioned before deadlines were scheduled, and
// not updated since). A service that parks runs checks it at start-up.
func CheckTimers(ctx context.Context, js jetstream.JetStream) error {
	s, err := js.Stream(ctx, events.StreamWork)
	if err != nil {
		return fmt.Errorf("could not look up stream %s: %w", events.StreamWork, err)
	}
	for _, src := range s.CachedInfo().Config.Sources {
		if src != nil && src.Name == events.StreamTimers {
			return nil
		}
	}
	return fmt.Errorf("%w: stream %s does not source %s, so park deadlines would never fire: provision with update (codali provision, or a service with --provision update)",
		ErrInvalidConfig, events.StreamWork, events.StreamTimers)
}
