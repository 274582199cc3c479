package worker

import (
	"errors"
	"fmt"
	"time"
)

// Defer tells the runtime that the event cannot be decided yet and should
// be handed back after d: the message is not acknowledged but returned to
// JetStream with a delay (NakWithDelay), so nothing in this process waits
// for it and a restart loses nothing. It is not counted as a failure. A
// run parked for approval defers its approval_requested event until the
// deadline this way.
func Defer(d time.Duration) error {
	return &deferral{after: max(d, time.Second)}
}

type deferral struct{ after time.Duration }

func (d *deferral) Error() string { return fmt.Sprintf("deferred for %s", d.after) }

// deferredFor reports whether err is a Defer and for how long.
func deferredFor(err error) (time.Duration, bool) {
	var d *deferral
	if errors.As(err, &d) {
		return d.after, true
	}
	return 0, false
}

func isDeferred(err error) bool {
	_, ok := deferredFor(err)
	return ok
}
