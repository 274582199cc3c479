package rao

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
)

// strictWireEvent is decoded with unknown fields disallowed; pointers tell
// missing required members from zero values.
type strictWireEvent struct {
	ID         *string         `json:"id"`
	RunID      *string         `json:"run_id"`
	Seq        *uint64         `json:"seq"`
	TS         *time.Time      `json:"ts"`
	Kind       *Kind           `json:"kind"`
	Base       string          `json:"base"`
	Cause      string          `json:"cause"`
	Summary    string          `json:"summary"`
	Delta      *Patch          `json:"delta"`
	Checkpoint bool            `json:"checkpoint"`
	Snapshot   json.RawMessage `json:"snapshot"`
	SnapshotZ  string          `json:"snapshot_z"`
	Meta       *Meta           `json:"meta"`
	PrevHash   string          `json:"prev_hash"`
}

// Encode validates e (see Event.Validate) and returns its stored form:
// canonical JSON with the snapshot, if any, DEFLATE-compressed and base64
// encoded in "snapshot_z" instead of "snapshot". It returns an error
// wrapping ErrInvalidEvent for invalid events.
func Encode(e Event) ([]byte, error) {
	return encode(e, true)
}

// encode is Encode with snapshot compression optional.
func encode(e Event, compress bool) ([]byte, error) {
	if err := e.Validate(); err != nil {
		return nil, fmt.Errorf("could not encode event %s: %w", e.ID, err)
	}
	key, snap := "snapshot", []byte(nil)
	if e.Checkpoint {
		c, err := CanonicalizeJSON(e.Snapshot)
		if err != nil {
			return nil, fmt.Errorf("could not encode event %s: %w: %w", e.ID, ErrInvalidEvent, err)
		}
		snap = c
		if compress {
			key, snap = "snapshot_z", []byte(compressSnapshot(c))
		}
	}
	// The snapshot is canonical now; the delta's values are canonicalized.
	out, err := appendWire(nil, e, key, snap, false)
	if err != nil {
		return nil, fmt.Errorf("could not encode event %s: %w: %w", e.ID, ErrInvalidEvent, err)
	}
	return out, nil
}

// MarshalJSON encodes the event with Encode.
func (e Event) MarshalJSON() ([]byte, error) {
	return Encode(e)
}

// UnmarshalJSON decodes the event with Decode.
func (e *Event) UnmarshalJSON(b []byte) error {
	ev, err := Decode(b)
	if err != nil {
		return err
	}
	*e = ev
	return nil
}

// Decode parses one stored event strictly: unknown members, missing
// required members (id, run_id, seq, ts, kind, delta, meta), both
// "snapshot" and "snapshot_z", an undecodable snapshot or anything
// Event.Validate rejects give an error wrapping ErrInvalidEvent. The
// returned Snapshot is the canonical uncompressed state.
func Decode(b []byte) (Event, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var w strictWireEvent
	if err := dec.Decode(&w); err != nil {
		return Event{}, fmt.Errorf("could not decode event: %w: %w", ErrInvalidEvent, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Event{}, fmt.Errorf("could not decode event: %w: trailing data", ErrInvalidEvent)
	}
	var missing []string
	for name, present := range map[string]bool{
		"id": w.ID != nil, "run_id": w.RunID != nil, "seq": w.Seq != nil, "ts": w.TS != nil,
		"kind": w.Kind != nil, "delta": w.Delta != nil, "meta": w.Meta != nil,
	} {
		if !present {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return Event{}, fmt.Errorf("could not decode event: %w: missing %v", ErrInvalidEvent, sortedStrings(missing))
	}
	e := Event{
		ID: *w.ID, RunID: *w.RunID, Seq: *w.Seq, TS: *w.TS, Kind: *w.Kind,
		Base: w.Base, Cause: w.Cause, Summary: w.Summary, Delta: *w.Delta,
		Checkpoint: w.Checkpoint, Meta: *w.Meta, PrevHash: w.PrevHash,
	}
	if e.Delta == nil {
		e.Delta = Patch{}
	}
	switch {
	case len(w.Snapshot) > 0 && w.SnapshotZ != "":
		return Event{}, fmt.Errorf("could not decode event %s: %w: both snapshot and snapshot_z", e.ID, ErrInvalidEvent)
	case w.SnapshotZ != "":
		snap, err := decompressSnapshot(w.SnapshotZ)
		if err != nil {
			return Event{}, fmt.Errorf("could not decode event %s: %w", e.ID, err)
		}
		e.Snapshot = snap
	case len(w.Snapshot) > 0:
		snap, err := CanonicalizeJSON(w.Snapshot)
		if err != nil {
			return Event{}, fmt.Errorf("could not decode event %s: %w: snapshot: %w", e.ID, ErrInvalidEvent, err)
		}
		e.Snapshot = snap
	}
	if err := e.Validate(); err != nil {
		return Event{}, fmt.Errorf("could not decode event: %w", err)
	}
	return e, nil
}

// Hash returns the hex SHA-256 of the event's canonical JSON with the
// snapshot uncompressed, so the chain does not depend on the compressor.
// It covers every field. It does not validate the event; it fails (with an
// error wrapping ErrInvalidJSON) only when a value cannot be encoded, e.g.
// a snapshot or delta value that is not JSON.
func Hash(e Event) (string, error) {
	b, err := appendWire(nil, e, "snapshot", e.Snapshot, false)
	if err != nil {
		return "", fmt.Errorf("could not hash event %s: %w", e.ID, err)
	}
	return hashWire(b), nil
}

// EncodedSize returns len(Encode(e)).
func EncodedSize(e Event) (int, error) {
	b, err := Encode(e)
	if err != nil {
		return 0, err
	}
	return len(b), nil
}

// sortedStrings returns s sorted, for stable messages.
func sortedStrings(s []string) []string {
	slices.Sort(s)
	return s
}
