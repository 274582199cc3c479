package redact

import "iter"

// Name/value pairs: lists such as Kubernetes' env,
// [{"name": "DB_PASSWORD", "value": "hunter2"}], AWS tags
// ({"Key": …, "Value": …}) and SSM parameters name a secret in one member
// and hold it in another. In JSON, Value and the text rules, an object's
// "value" member is redacted as if under a secret key when a "name" or
// "key" member of the same object (ignoring case and separators, in any
// order) is a string for which IsSecretKey holds.
//
// That makes the redaction of a "value" member depend on its siblings:
// [PairedMembers] tells when it does, for code that redacts an object's
// members one at a time.

// pairRole is what a member's key makes it in a name/value pair.
type pairRole uint8

const (
	pairNone  pairRole = iota
	pairName           // "name" or "key": its string value may name a secret
	pairValue          // "value": redacted when a sibling names a secret
)

// roleOf returns the pair role of an object key, compared as IsSecretKey
// compares keys (case and separators ignored).
func roleOf[T string | []byte](key T) pairRole {
	var buf [5]byte
	n := 0
	for i := 0; i < len(key); i++ {
		c, ok := keyByte(key[i])
		if !ok {
			continue
		}
		if n == len(buf) {
			return pairNone
		}
		buf[n] = c
		n++
	}
	switch string(buf[:n]) {
	case "name", "key":
		return pairName
	case "value":
		return pairValue
	}
	return pairNone
}

// namesSecret reports whether raw, the valid JSON value of a pairName
// member, is a string naming a secret.
func namesSecret(raw []byte) bool {
	if len(raw) == 0 || raw[0] != '"' {
		return false
	}
	var buf [64]byte
	text, _ := decodeJSONString(buf[:0], raw, 1)
	return isSecretKey(text)
}

// PairedMembers reports whether the redaction of an object with these
// members (each key and its valid JSON value) depends on its members
// together: the object has a "value" member and a "name" or "key" member
// naming a secret, so JSON redacts the "value" member although it would
// keep it alone under its key. Otherwise each member redacts inside the
// object exactly as alone in an object under its key.
func PairedMembers(members iter.Seq2[string, []byte]) bool {
	hasValue, secretName := false, false
	for key, raw := range members {
		switch roleOf(key) {
		case pairValue:
			hasValue = true
		case pairName:
			secretName = secretName || namesSecret(raw)
		}
		if hasValue && secretName {
			return true
		}
	}
	return false
}
