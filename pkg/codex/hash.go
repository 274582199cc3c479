package codex

import (
	"crypto/sha256"
	"encoding/hex"
)

// hashHexDigits is the number of hex digits HashID and the checksum emit
// (64 bits of SHA-256).
const hashHexDigits = 16

// checksumNamespace is the namespace of the checksum Encode emits.
const checksumNamespace = "sum"

// HashID returns namespace#<first 16 hex digits of SHA-256(input)>, the form
// every identifier (project, hotspot, ADR, session) takes in a payload so that
// raw paths and ids never appear. namespace must be at least three lowercase
// ASCII letters; HashID does not check it, but a result whose namespace breaks
// that rule fails IsHashID and Encode rejects it with ErrHashViolation.
func HashID(namespace, input string) string {
	sum := sha256.Sum256([]byte(input))
	return namespace + "#" + hex.EncodeToString(sum[:])[:hashHexDigits]
}

// IsHashID reports whether s is a hashed symbol as decoders accept it:
// [a-z]{3,}#[0-9a-f]{4,}.
func IsHashID(s string) bool {
	ns, hx, ok := cutByte(s, '#')
	if !ok || len(ns) < 3 || len(hx) < 4 {
		return false
	}
	for i := 0; i < len(ns); i++ {
		if ns[i] < 'a' || ns[i] > 'z' {
			return false
		}
	}
	for i := 0; i < len(hx); i++ {
		c := hx[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// bodyChecksum is the checksum Encode puts in OPTIONAL: sum#<16 hex of
// SHA-256> over span, the normalised text from "<DATA>" through
// "</DECISIONS>" inclusive.
func bodyChecksum(span string) string {
	return HashID(checksumNamespace, span)
}

// isOwnChecksum reports whether v has the form bodyChecksum produces.
func isOwnChecksum(v string) bool {
	return len(v) == len(checksumNamespace)+1+hashHexDigits &&
		v[:len(checksumNamespace)+1] == checksumNamespace+"#" && IsHashID(v)
}
