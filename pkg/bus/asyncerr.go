package bus

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
)

// ErrPermissionDenied is wrapped by the error of a request the NATS server
// refused to let this connection's identity make: its reply never comes,
// so the request times out, and the server says why only asynchronously.
// An identity rendered by an older release lacks the permissions a newer
// one needs (docs/deployment.md: apply the permissions again).
var ErrPermissionDenied = errors.New("the NATS server refused this identity a permission it needs")

// permissionHint is what an operator does about ErrPermissionDenied.
const permissionHint = "apply the NATS permissions of this release (docs/deployment.md, Permissions)"

// refused returns ErrPermissionDenied, wrapped with the subject, when the
// last asynchronous error of nc is the server refusing a publish to
// subject; nil otherwise.
func refused(nc *nats.Conn, subject string) error {
	if nc == nil {
		return nil
	}
	last := nc.LastError()
	if !errors.Is(last, nats.ErrPermissionViolation) {
		return nil
	}
	msg := strings.ToLower(last.Error())
	if !strings.Contains(msg, "publish") || !strings.Contains(last.Error(), strconv.Quote(subject)) {
		return nil
	}
	return fmt.Errorf("%w: publish to %s (%s)", ErrPermissionDenied, subject, permissionHint)
}

// logAsyncErrors reports what nats.go tells only to a connection's error
// handler — a permission the server refused, a slow consumer — instead of
// dropping it.
func logAsyncErrors(log *slog.Logger) nats.ErrHandler {
	return func(_ *nats.Conn, sub *nats.Subscription, err error) {
		attrs := []any{"err", err}
		if sub != nil {
			attrs = append(attrs, "subscription", sub.Subject)
		}
		if errors.Is(err, nats.ErrPermissionViolation) {
			log.Error("the NATS server refused this identity a permission; "+permissionHint, attrs...)
			return
		}
		log.Warn("NATS connection error", attrs...)
	}
}

// logConnectionChanges reports a lost connection and its return.
func logConnectionChanges(log *slog.Logger) []nats.Option {
	return []nats.Option{
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("disconnected from NATS; reconnecting", "err", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log.Info("reconnected to NATS", "server", Redacted(nc.ConnectedUrl()))
		}),
	}
}
