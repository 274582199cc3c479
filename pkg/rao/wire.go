package rao

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
)

// appendWire appends the canonical JSON of e's stored form (the same bytes
// as Canonical(e.wire()) with the snapshot member set) without marshalling
// and re-parsing it: the members are written directly, in the canonical
// (sorted) key order. snapKey is "snapshot" or "snapshot_z" and snap its
// value: canonical JSON for "snapshot", the compressed text for
// "snapshot_z"; both are left out when snap is empty.
//
// With trusted, the delta's values (and a "snapshot") must already be
// canonical JSON and are copied as they are: the chain's own events,
// whose values it encoded itself. Otherwise each value is canonicalized.
// It fails (wrapping ErrInvalidJSON) only for a value that is not JSON or
// a timestamp encoding/json cannot marshal.
func appendWire(buf []byte, e Event, snapKey string, snap []byte, trusted bool) ([]byte, error) {
	// Keys sorted by their bytes: base, cause, checkpoint, delta, id, kind,
	// meta, prev_hash, run_id, seq, snapshot|snapshot_z, summary, ts.
	buf = append(buf, '{')
	first := true
	key := func(k string) {
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = append(appendString(buf, k), ':')
	}
	str := func(k, v string, omitEmpty bool) {
		if v == "" && omitEmpty {
			return
		}
		key(k)
		buf = appendString(buf, v)
	}
	str("base", e.Base, true)
	str("cause", e.Cause, true)
	if e.Checkpoint {
		key("checkpoint")
		buf = append(buf, "true"...)
	}
	key("delta")
	var err error
	if buf, err = appendDelta(buf, e.Delta, trusted); err != nil {
		return nil, err
	}
	str("id", e.ID, false)
	str("kind", string(e.Kind), false)
	key("meta")
	buf = appendMeta(buf, e.Meta)
	str("prev_hash", e.PrevHash, true)
	str("run_id", e.RunID, false)
	key("seq")
	buf = strconv.AppendUint(buf, e.Seq, 10)
	if len(snap) > 0 {
		key(snapKey)
		switch {
		case snapKey == "snapshot_z":
			buf = appendString(buf, string(snap))
		case trusted:
			buf = append(buf, snap...)
		default:
			c, err := CanonicalizeJSON(snap)
			if err != nil {
				return nil, err
			}
			buf = append(buf, c...)
		}
	}
	str("summary", e.Summary, true)
	ts, err := e.TS.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("could not encode ts: %w: %w", ErrInvalidJSON, err)
	}
	key("ts")
	// MarshalJSON writes an RFC 3339 string, which needs no escaping: it
	// is already canonical.
	buf = append(buf, ts...)
	return append(buf, '}'), nil
}

// appendDelta appends the canonical JSON of a patch: [] for nil, members
// of each op in key order from, op, path, value (from and value left out
// when empty, as their omitempty tags do).
func appendDelta(buf []byte, p Patch, trusted bool) ([]byte, error) {
	buf = append(buf, '[')
	for i, op := range p {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '{')
		if op.From != "" {
			buf = append(appendString(append(buf, `"from":`...), op.From), ',')
		}
		buf = appendString(append(buf, `"op":`...), op.Op)
		buf = appendString(append(buf, `,"path":`...), op.Path)
		if len(op.Value) > 0 {
			buf = append(buf, `,"value":`...)
			if trusted {
				buf = append(buf, op.Value...)
			} else {
				c, err := CanonicalizeJSON(op.Value)
				if err != nil {
					return nil, err
				}
				buf = append(buf, c...)
			}
		}
		buf = append(buf, '}')
	}
	return append(buf, ']'), nil
}

// appendMeta appends the canonical JSON of m: contract_hash, pm_rev,
// policy_hash (each left out when empty) and schema.
func appendMeta(buf []byte, m Meta) []byte {
	buf = append(buf, '{')
	for _, f := range [...]struct{ k, v string }{{"contract_hash", m.ContractHash}, {"pm_rev", m.PMRev}, {"policy_hash", m.PolicyHash}} {
		if f.v != "" {
			buf = append(appendString(append(appendString(buf, f.k), ':'), f.v), ',')
		}
	}
	buf = appendString(append(buf, `"schema":`...), m.Schema)
	return append(buf, '}')
}

// hashWire returns the hex SHA-256 of a canonical stored form with the
// snapshot uncompressed (see Hash).
func hashWire(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
