// Package msgid gives the events services publish into the work stream
// message ids agents cannot predict. The work stream de-duplicates by
// Nats-Msg-Id whatever the subject, and agents may set any message id on
// what they publish: a service output published under its plain event id
// (`<run_id>.<event>.<attempt>[.<key>]`, predictable) could be taken first
// by an agent's message and then dropped as a duplicate. A service output's
// message id is its event id followed by a tag, an HMAC of the event id
// under a secret key created once at provisioning: the same on every
// replica and across restarts (a redelivered handling's re-publish is
// still de-duplicated), unknown to anyone who cannot read the key bucket.
package msgid

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// KeySize is the size of a key in bytes.
const KeySize = 32

// TagLen is the length in hex digits of the tag appended to an event id.
const TagLen = 16

// ErrNoKey is returned where a message id is asked of a zero Key.
var ErrNoKey = errors.New("msgid: no message id key")

// ErrBadKey is returned for a stored key of the wrong size.
var ErrBadKey = errors.New("msgid: malformed message id key")

// Key is the secret message id key. The zero Key has no secret and makes
// no ids (ErrNoKey), so a service that could not read the key publishes
// nothing rather than predictable ids.
type Key struct {
	secret []byte
}

// NewKey returns the key with secret b (KeySize bytes).
func NewKey(b []byte) (Key, error) {
	if len(b) != KeySize {
		return Key{}, fmt.Errorf("%w: %d bytes (want %d)", ErrBadKey, len(b), KeySize)
	}
	return Key{secret: append([]byte(nil), b...)}, nil
}

// Random returns a new random key.
func Random() (Key, error) {
	b := make([]byte, KeySize)
	if _, err := rand.Read(b); err != nil {
		return Key{}, fmt.Errorf("msgid: could not draw a key: %w", err)
	}
	return NewKey(b)
}

// IsZero reports whether k has no secret.
func (k Key) IsZero() bool { return len(k.secret) == 0 }

// String hides the secret (a Key logged by mistake shows nothing).
func (k Key) String() string {
	if k.IsZero() {
		return "msgid.Key(none)"
	}
	return "msgid.Key(set)"
}

// GoString hides the secret from %#v too.
func (k Key) GoString() string { return k.String() }

// For returns the Nats-Msg-Id of the service output whose event id is
// eventID: eventID, ".", and the first TagLen hex digits of
// HMAC-SHA256(key, eventID).
func (k Key) For(eventID string) (string, error) {
	if k.IsZero() {
		return "", ErrNoKey
	}
	mac := hmac.New(sha256.New, k.secret)
	mac.Write([]byte(eventID))
	return eventID + "." + hex.EncodeToString(mac.Sum(nil))[:TagLen], nil
}
