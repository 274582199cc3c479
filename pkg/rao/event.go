package rao

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SchemaV2 is the only event schema this package reads and writes.
const SchemaV2 = "rao.v2"

// Unknown is what Meta.Display shows for a missing tag.
const Unknown = "unknown"

// Kind classifies an event.
type Kind string

// Event kinds.
const (
	// KindRun is a state change produced by the run's pipeline.
	KindRun Kind = "run"
	// KindAudit is an auditor's annotation.
	KindAudit Kind = "audit"
	// KindOverride is an operator action that overrides the pipeline.
	KindOverride Kind = "override"
)

// Valid reports whether k is one of the defined kinds.
func (k Kind) Valid() bool {
	switch k {
	case KindRun, KindAudit, KindOverride:
		return true
	default:
		return false
	}
}

// Meta carries the provenance tags of an event.
type Meta struct {
	// Schema is the event schema version; always SchemaV2.
	Schema string `json:"schema"`
	// PolicyHash is the SHA-256 of the stable JSON of policy inputs.
	PolicyHash string `json:"policy_hash,omitempty"`
	// ContractHash is the SHA-256 of the loaded contract file.
	ContractHash string `json:"contract_hash,omitempty"`
	// PMRev is the PM revision at append time.
	PMRev string `json:"pm_rev,omitempty"`
}

// Display returns a copy of m in which every missing tag reads Unknown,
// for showing to people. Never store the result.
func (m Meta) Display() Meta {
	or := func(s string) string {
		if s == "" {
			return Unknown
		}
		return s
	}
	return Meta{Schema: or(m.Schema), PolicyHash: or(m.PolicyHash), ContractHash: or(m.ContractHash), PMRev: or(m.PMRev)}
}

// String renders the tags on one line, missing ones as Unknown.
func (m Meta) String() string {
	d := m.Display()
	return fmt.Sprintf("schema=%s policy_hash=%s contract_hash=%s pm_rev=%s", d.Schema, d.PolicyHash, d.ContractHash, d.PMRev)
}

// Event is one entry of a run's RAO history: the change (Delta) from the
// state after the previous event to the state after this one.
//
// Events marshal with Encode and unmarshal with Decode (strict).
type Event struct {
	// ID is "<run_id>.<seq>".
	ID string `json:"id"`
	// RunID is the run the event belongs to.
	RunID string `json:"run_id"`
	// Seq numbers the events of a run from 1 without gaps.
	Seq uint64 `json:"seq"`
	// TS is when the event was recorded.
	TS time.Time `json:"ts"`
	// Kind classifies the event.
	Kind Kind `json:"kind"`
	// Base is the ID of the event this delta applies to; empty for seq 1.
	Base string `json:"base,omitempty"`
	// Cause is the ID of the pipeline event or operator action that
	// produced this event.
	Cause string `json:"cause,omitempty"`
	// Summary is a one-line human description.
	Summary string `json:"summary,omitempty"`
	// Delta turns the previous state into this event's state.
	Delta Patch `json:"delta"`
	// Checkpoint marks events that carry the full state in Snapshot.
	Checkpoint bool `json:"checkpoint,omitempty"`
	// Snapshot is the full canonical state after this event, on
	// checkpoints only. It is stored compressed (see Encode).
	Snapshot json.RawMessage `json:"snapshot,omitempty"`
	// Meta carries provenance tags.
	Meta Meta `json:"meta"`
	// PrevHash is Hash of the previous event; empty for the first event.
	PrevHash string `json:"prev_hash,omitempty"`
}

// EventID returns the ID of event seq of run runID.
func EventID(runID string, seq uint64) string {
	return runID + "." + strconv.FormatUint(seq, 10)
}

// ValidRunID reports whether id can name a run: non-empty, at most 256
// bytes, and usable as one NATS subject token (no '.', '*', '>',
// whitespace or control characters).
func ValidRunID(id string) bool {
	if id == "" || len(id) > 256 {
		return false
	}
	for _, r := range id {
		if r <= ' ' || r == 0x7f || r == '.' || r == '*' || r == '>' {
			return false
		}
	}
	return true
}

// Validate checks the event on its own (links to other events are checked
// by Verify): a valid run ID, seq ≥ 1, ID matching run and seq, a
// timestamp, a known kind, schema SchemaV2, a valid delta (see
// Patch.Validate), a snapshot (a JSON object or array) exactly when
// Checkpoint is set, and a prev_hash that is empty or 64 lowercase hex
// digits. It returns all problems joined, each wrapping ErrInvalidEvent.
func (e Event) Validate() error {
	return e.validate(true)
}

// validate is Validate; checkSnapshot false skips parsing the snapshot.
func (e Event) validate(checkSnapshot bool) error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: %s", ErrInvalidEvent, fmt.Sprintf(format, args...)))
	}
	if !ValidRunID(e.RunID) {
		bad("run_id %q is not a valid run id", e.RunID)
	}
	if e.Seq == 0 {
		bad("seq must be at least 1")
	}
	if want := EventID(e.RunID, e.Seq); e.ID != want {
		bad("id %q should be %q", e.ID, want)
	}
	if e.TS.IsZero() {
		bad("ts is missing")
	}
	if !e.Kind.Valid() {
		bad("unknown kind %q", e.Kind)
	}
	if e.Meta.Schema != SchemaV2 {
		bad("schema %q is not %q", e.Meta.Schema, SchemaV2)
	}
	if err := e.Delta.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("%w: %w", ErrInvalidEvent, err))
	}
	switch {
	case e.Checkpoint && len(e.Snapshot) == 0:
		bad("checkpoint without snapshot")
	case !e.Checkpoint && len(e.Snapshot) != 0:
		bad("snapshot on a non-checkpoint event")
	case e.Checkpoint && checkSnapshot:
		if _, err := decodeState(e.Snapshot); err != nil {
			errs = append(errs, fmt.Errorf("%w: snapshot: %w", ErrInvalidEvent, err))
		}
	}
	if e.PrevHash != "" && !isHexHash(e.PrevHash) {
		bad("prev_hash %q is not a hex SHA-256", e.PrevHash)
	}
	return errors.Join(errs...)
}

// isHexHash reports whether s is 64 lowercase hex digits.
func isHexHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}
