package bus

import (
	"errors"
	"fmt"
	"log/slog"
	"reflect"
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

// refusal watches one request for the server refusing it. The server
// says so only asynchronously, as the connection's last error, which
// stays there until another error or a reconnect replaces it: a refusal
// counts for a request only when it arrived while the request was in
// flight (it is not the error the connection had when the request was
// sent). So once the permission is granted (a server reload keeps the
// connection), a later timeout on the same subject is a timeout, not a
// refusal. Another asynchronous error arriving between the refusal and
// the request's end hides it: the request is then reported as the
// timeout it is (the connection's error handler still logs the refusal).
type refusal struct {
	nc     *nats.Conn
	before error
}

// watchRefusal starts watching a request about to be sent on nc.
func watchRefusal(nc *nats.Conn) refusal {
	if nc == nil {
		return refusal{}
	}
	return refusal{nc: nc, before: nc.LastError()}
}

// of returns ErrPermissionDenied, wrapped with the subject, when the
// server refused a publish to subject since watchRefusal; nil otherwise.
func (r refusal) of(subject string) error {
	if r.nc == nil {
		return nil
	}
	last := r.nc.LastError()
	if !errors.Is(last, nats.ErrPermissionViolation) || sameError(last, r.before) {
		return nil
	}
	msg := strings.ToLower(last.Error())
	if !strings.Contains(msg, "publish") || !strings.Contains(last.Error(), strconv.Quote(subject)) {
		return nil
	}
	return fmt.Errorf("%w: publish to %s (%s)", ErrPermissionDenied, subject, permissionHint)
}

// sameError reports whether a and b are the same error value (nats.go
// makes a new one for every error the server sends), without comparing
// values of a type that cannot be compared.
func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	ta := reflect.TypeOf(a)
	return ta == reflect.TypeOf(b) && ta.Comparable() && a == b
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
