package events

import (
	"crypto/rand"
	"fmt"
	"io"
	"time"
)

// MaxRunIDLen is the longest accepted run id.
const MaxRunIDLen = 64

// ValidateRunID checks that id can be used as a single NATS subject token
// and as a file name: 1 to 64 characters from [A-Za-z0-9_-]. It returns an
// error wrapping ErrBadRunID otherwise.
func ValidateRunID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: empty", ErrBadRunID)
	}
	if len(id) > MaxRunIDLen {
		return fmt.Errorf("%w: %d characters (max %d)", ErrBadRunID, len(id), MaxRunIDLen)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
		if !ok {
			return fmt.Errorf("%w: %q contains %q (allowed: letters, digits, '-', '_')", ErrBadRunID, id, c)
		}
	}
	return nil
}

const crockford = "0123456789abcdefghjkmnpqrstvwxyz"

// NewRunID returns a new time-sortable run id: 26 lowercase Crockford
// base32 characters, 48 bits of milliseconds then 80 random bits (the ULID
// layout). It returns an error only when the random source fails.
func NewRunID(now time.Time, random io.Reader) (string, error) {
	if random == nil {
		random = rand.Reader
	}
	var b [16]byte
	ms := uint64(now.UnixMilli())
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	if _, err := io.ReadFull(random, b[6:]); err != nil {
		return "", fmt.Errorf("could not read random bytes for a run id: %w", err)
	}
	// 128 bits -> 26 base32 characters (the first carries 3 bits).
	out := make([]byte, 26)
	var acc uint64
	var hi = uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 | uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
	var lo = uint64(b[8])<<56 | uint64(b[9])<<48 | uint64(b[10])<<40 | uint64(b[11])<<32 | uint64(b[12])<<24 | uint64(b[13])<<16 | uint64(b[14])<<8 | uint64(b[15])
	for i := 25; i >= 0; i-- {
		acc = lo & 31
		lo = lo>>5 | hi<<59
		hi >>= 5
		out[i] = crockford[acc]
	}
	return string(out), nil
}
