package rao

import (
	"bytes"
	"fmt"
	"time"
)

// DefaultCheckpointEvery is the default checkpoint interval.
const DefaultCheckpointEvery = 10

// emptyState is the baseline before a run's first event.
const emptyState = "{}"

// Builder produces the events of one run's history.
type Builder struct {
	// RunID names the run; required for the first event, and when set it
	// must match the previous event's run.
	RunID string
	// CheckpointEvery makes every n-th event (seq divisible by n) a
	// checkpoint carrying the full state. 0 means DefaultCheckpointEvery;
	// 1 makes every event a checkpoint; negative values are invalid.
	CheckpointEvery int
	// Compressors, when set, lends Chain.NextSealed the writer that
	// compresses a checkpoint's snapshot (shared by a writer's chains);
	// nil makes a new one per checkpoint. The events are the same bytes
	// either way.
	Compressors *Compressors
}

func (b Builder) every() (int, error) {
	switch {
	case b.CheckpointEvery < 0:
		return 0, fmt.Errorf("%w: CheckpointEvery %d is negative", ErrInvalidConfig, b.CheckpointEvery)
	case b.CheckpointEvery == 0:
		return DefaultCheckpointEvery, nil
	default:
		return b.CheckpointEvery, nil
	}
}

// Next returns the event that follows prev (nil for a run's first event)
// and turns prevState — the state after prev, or the empty baseline {} when
// prev is nil (prevState may then be nil) — into next.
//
// It sets ID, seq, base and prev_hash from prev, the delta from Diff, and
// on every CheckpointEvery-th event the checkpoint flag and the snapshot.
// An empty meta.Schema is set to SchemaV2 and ts is stored in UTC. A next
// equal to prevState is allowed and gives an empty delta, so that audit
// notes and overrides without a state change can be recorded.
//
// Errors: ErrInvalidConfig (bad CheckpointEvery, missing or different run
// ID), ErrInvalidState (next or prevState is not a JSON object or array),
// ErrStateMismatch (prevState differs from prev's checkpoint snapshot, or
// is not the baseline for a first event), ErrInvalidEvent (bad kind, meta,
// timestamp or run ID), ErrInvalidJSON (prev cannot be hashed).
func (b Builder) Next(prev *Event, prevState, next []byte, kind Kind, cause, summary string, meta Meta, ts time.Time) (Event, error) {
	ev, _, _, err := b.next(prev, "", prevState, nil, next, nil, nil, kind, cause, summary, meta, ts)
	return ev, err
}

// next is Next that takes prev's hash, the decoded previous and next
// states and the next state's canonical encoding when known (prevHash may
// be empty, pv, nv and cnext nil; nv must then be next decoded, and cnext
// its canonical encoding) and also returns the canonical and decoded next
// state.
func (b Builder) next(prev *Event, prevHash string, prevState []byte, pv any, next []byte, nv any, cnext []byte, kind Kind, cause, summary string, meta Meta, ts time.Time) (Event, []byte, any, error) {
	every, err := b.every()
	if err != nil {
		return Event{}, nil, nil, err
	}
	if nv == nil {
		if nv, err = decodeState(next); err != nil {
			return Event{}, nil, nil, fmt.Errorf("could not build event: next state: %w", err)
		}
	}
	ev := Event{Kind: kind, Cause: cause, Summary: summary, Meta: meta, TS: ts.UTC()}
	if ev.Meta.Schema == "" {
		ev.Meta.Schema = SchemaV2
	}
	if prev == nil {
		if b.RunID == "" {
			return Event{}, nil, nil, fmt.Errorf("%w: the first event needs Builder.RunID", ErrInvalidConfig)
		}
		if prevState == nil {
			prevState = []byte(emptyState)
		}
		if !sameJSON(prevState, []byte(emptyState)) {
			return Event{}, nil, nil, fmt.Errorf("%w: the first event must start from {}", ErrStateMismatch)
		}
		pv = map[string]any{}
		ev.RunID, ev.Seq = b.RunID, 1
	} else {
		if b.RunID != "" && b.RunID != prev.RunID {
			return Event{}, nil, nil, fmt.Errorf("%w: builder is for run %q, previous event is of run %q", ErrInvalidConfig, b.RunID, prev.RunID)
		}
		if pv == nil {
			if pv, err = decodeState(prevState); err != nil {
				return Event{}, nil, nil, fmt.Errorf("could not build event: previous state: %w", err)
			}
		}
		// A chain passes the canonical state it stored as prev's snapshot:
		// equal bytes need no encoding.
		if prev.Checkpoint && !bytes.Equal(prev.Snapshot, prevState) && !bytes.Equal(prev.Snapshot, canonicalBytes(pv)) && !sameJSON(prev.Snapshot, prevState) {
			return Event{}, nil, nil, fmt.Errorf("%w: snapshot of %s", ErrStateMismatch, prev.ID)
		}
		h := prevHash
		if h == "" {
			if h, err = Hash(*prev); err != nil {
				return Event{}, nil, nil, fmt.Errorf("could not build event: %w", err)
			}
		}
		ev.RunID, ev.Seq, ev.Base, ev.PrevHash = prev.RunID, prev.Seq+1, prev.ID, h
	}
	ev.ID = EventID(ev.RunID, ev.Seq)
	ev.Delta = diffValues(pv, nv)
	if cnext == nil {
		cnext = canonicalBytes(nv)
	}
	if ev.Seq%uint64(every) == 0 {
		ev.Checkpoint, ev.Snapshot = true, cnext
	}
	// The snapshot is canonical by construction; skip re-parsing it.
	if err := ev.validate(false); err != nil {
		return Event{}, nil, nil, fmt.Errorf("could not build event %s: %w", ev.ID, err)
	}
	return ev, cnext, nv, nil
}

// decodeState decodes a state document, which must be a JSON object or
// array; errors wrap ErrInvalidJSON or ErrInvalidState.
func decodeState(doc []byte) (any, error) {
	v, err := decodeValue(doc)
	if err != nil {
		return nil, err
	}
	switch v.(type) {
	case map[string]any, []any:
		return v, nil
	default:
		return nil, fmt.Errorf("%w: must be a JSON object or array", ErrInvalidState)
	}
}

// sameJSON reports whether a and b hold the same JSON value; invalid JSON
// is never the same.
func sameJSON(a, b []byte) bool {
	ca, err := CanonicalizeJSON(a)
	if err != nil {
		return false
	}
	cb, err := CanonicalizeJSON(b)
	if err != nil {
		return false
	}
	return bytes.Equal(ca, cb)
}

// Chain is a Builder that remembers the last event and state, for a writer
// appending to one run. Use NewChain or Resume.
type Chain struct {
	b    Builder
	last *Event
	// lastHash is Hash(*last) when the chain built last itself ("" after
	// Resume: computed when needed).
	lastHash string
	state    []byte // canonical state after last
	val      any    // decoded state, never mutated
	// tree holds the last state passed to Next as decoded subtrees with
	// their bytes, so Next decodes only the parts that changed.
	tree *valNode
}

// NewChain returns a Chain for a new run (b.RunID must be set).
func NewChain(b Builder) *Chain { return &Chain{b: b} }

// Resume returns a Chain positioned after the last event of history
// (which may be empty for a new run); it replays the history to recover
// the state. Errors are those of Replay.
func Resume(b Builder, history []Event) (*Chain, error) {
	c := &Chain{b: b}
	if len(history) == 0 {
		return c, nil
	}
	st, err := Replay(history, 0)
	if err != nil {
		return nil, fmt.Errorf("could not resume chain: %w", err)
	}
	last := history[len(history)-1]
	c.last, c.state = &last, st
	return c, nil
}

// Last returns a copy of the last event, nil before the first.
func (c *Chain) Last() *Event {
	if c.last == nil {
		return nil
	}
	e := *c.last
	return &e
}

// LastHash returns Hash of the last event ("" before the first), computed
// once per event.
func (c *Chain) LastHash() (string, error) {
	if c.last == nil || c.lastHash != "" {
		return c.lastHash, nil
	}
	h, err := Hash(*c.last)
	if err != nil {
		return "", err
	}
	c.lastHash = h
	return h, nil
}

// State returns the canonical state after the last event, nil before the
// first.
func (c *Chain) State() []byte { return bytes.Clone(c.state) }

// Next builds the next event with Builder.Next and, on success, advances
// the chain to it. If the event is then not stored (e.g. a conflicting
// writer), discard the chain and Resume from the stored history. Errors
// are those of Builder.Next; the chain does not move on error.
func (c *Chain) Next(next []byte, kind Kind, cause, summary string, meta Meta, ts time.Time) (Event, error) {
	s, err := c.NextSealed(next, kind, cause, summary, meta, ts)
	if err != nil {
		return Event{}, err
	}
	return s.Event(), nil
}

// NextSealed is Next that also returns the event's stored form and hash
// (see Sealed), encoded once: the chain wrote the delta's values and the
// snapshot canonical itself, so they are not parsed again.
func (c *Chain) NextSealed(next []byte, kind Kind, cause, summary string, meta Meta, ts time.Time) (Sealed, error) {
	nv, tree := c.decode(next)
	var cnext []byte
	if tree != nil {
		cnext = tree.canonical()
	}
	prevHash, err := c.LastHash()
	if err != nil {
		return Sealed{}, fmt.Errorf("could not build event: %w", err)
	}
	ev, st, val, err := c.b.next(c.last, prevHash, c.state, c.val, next, nv, cnext, kind, cause, summary, meta, ts)
	if err != nil {
		return Sealed{}, err
	}
	s, err := sealTrusted(ev, c.b.Compressors)
	if err != nil {
		return Sealed{}, fmt.Errorf("could not build event %s: %w", ev.ID, err)
	}
	c.last, c.lastHash, c.state, c.val, c.tree = &ev, s.hash, st, val, tree
	return s, nil
}

// decode decodes a state, reusing the decoded subtrees of the previous
// call whose bytes are unchanged (decoded values are never mutated, so
// they are shared). It returns a nil value for anything that is not a
// valid object or array: Builder.next then decodes the whole document
// and reports the error.
func (c *Chain) decode(next []byte) (any, *valNode) {
	// The tree keeps parts of the document to compare the next one with:
	// copy it, the caller may reuse its buffer.
	doc, err := CheckJSON(bytes.Clone(next))
	if err != nil {
		return nil, nil
	}
	n, err := decodeTree(doc, c.tree, 0)
	if err != nil {
		return nil, nil
	}
	switch n.val.(type) {
	case map[string]any, []any:
		return n.val, n
	}
	return nil, nil
}
