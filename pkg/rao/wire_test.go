package rao

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// wireEvent is the stored form of an Event as encoding/json marshals it:
// the reference appendWire must match byte for byte once canonicalized.
type wireEvent struct {
	ID         string          `json:"id"`
	RunID      string          `json:"run_id"`
	Seq        uint64          `json:"seq"`
	TS         time.Time       `json:"ts"`
	Kind       Kind            `json:"kind"`
	Base       string          `json:"base,omitempty"`
	Cause      string          `json:"cause,omitempty"`
	Summary    string          `json:"summary,omitempty"`
	Delta      Patch           `json:"delta"`
	Checkpoint bool            `json:"checkpoint,omitempty"`
	Snapshot   json.RawMessage `json:"snapshot,omitempty"`
	SnapshotZ  string          `json:"snapshot_z,omitempty"`
	Meta       Meta            `json:"meta"`
	PrevHash   string          `json:"prev_hash,omitempty"`
}

// referenceWire is the canonical stored form by marshalling and
// canonicalizing (what Encode and Hash did before appendWire).
func referenceWire(e Event, snapKey string, snap []byte) ([]byte, error) {
	w := wireEvent{
		ID: e.ID, RunID: e.RunID, Seq: e.Seq, TS: e.TS, Kind: e.Kind,
		Base: e.Base, Cause: e.Cause, Summary: e.Summary, Delta: e.Delta,
		Checkpoint: e.Checkpoint, Meta: e.Meta, PrevHash: e.PrevHash,
	}
	if snapKey == "snapshot_z" {
		w.SnapshotZ = string(snap)
	} else {
		w.Snapshot = snap
	}
	return Canonical(w)
}

// awkwardStrings are strings whose JSON encodings differ between
// encoders: HTML characters, controls, quotes, invalid UTF-8, line and
// paragraph separators, non-ASCII.
var awkwardStrings = []string{"", "a", "<b>&amp;</b>", "tab\there\nnl\r", "\x00\x1f\x7f", `q"u\o`, "bad\xffutf8\xc3", "\u2028\u2029", "é漢🙂", "snapshot_z", "/a~1b"}

// awkwardValues are JSON values, canonical or not: spaces, unsorted and
// duplicate keys, escapes that canonical form writes plainly, numbers as
// written.
var awkwardValues = []string{`null`, `true`, ` 1.50e+3 `, `-0`, `"\u0041\/<"`, `{"b":1,"a":[2, 3]}`, `{"a":1,"a":2}`, `[{"z":{}},[],"\ud83d\ude42"]`, `12345678901234567890123`, `{"":"\u2028"}`}

// randomEvent returns an event with random, awkward members; it need not
// be valid (appendWire encodes any event).
func randomEvent(rng *rand.Rand) Event {
	pick := func() string { return awkwardStrings[rng.IntN(len(awkwardStrings))] }
	e := Event{
		ID: pick(), RunID: pick(), Seq: rng.Uint64() >> rng.IntN(64), Kind: Kind(pick()),
		Base: pick(), Cause: pick(), Summary: pick(), PrevHash: pick(),
		Meta: Meta{Schema: pick(), PolicyHash: pick(), ContractHash: pick(), PMRev: pick()},
		TS:   time.Date(1+rng.IntN(9998), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60), rng.IntN(1e9), time.FixedZone("z", 60*(rng.IntN(1440)-720))),
	}
	if rng.IntN(4) == 0 {
		e.TS = e.TS.UTC()
	}
	switch rng.IntN(3) {
	case 0:
		e.Delta = nil
	case 1:
		e.Delta = Patch{}
	default:
		for range 1 + rng.IntN(4) {
			op := Op{Op: pick(), Path: pick(), From: pick()}
			if rng.IntN(3) > 0 {
				op.Value = json.RawMessage(awkwardValues[rng.IntN(len(awkwardValues))])
			}
			e.Delta = append(e.Delta, op)
		}
	}
	if rng.IntN(2) == 0 {
		e.Checkpoint = true
		e.Snapshot = json.RawMessage(awkwardValues[rng.IntN(len(awkwardValues))])
	}
	return e
}

// TestAppendWireMatchesMarshal: appendWire writes exactly the canonical
// JSON that marshalling the stored form and canonicalizing it gives, for
// random events full of awkward strings and non-canonical values, with a
// plain and a compressed snapshot; Hash and Encode agree with it.
func TestAppendWireMatchesMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 3000 {
		e := randomEvent(rng)
		for _, key := range []string{"snapshot", "snapshot_z"} {
			snap := []byte(e.Snapshot)
			if key == "snapshot_z" && len(snap) > 0 {
				snap = []byte(compressSnapshot(snap))
			}
			want, werr := referenceWire(e, key, snap)
			got, gerr := appendWire(nil, e, key, snap, false)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("event %d (%s): reference error %v, appendWire error %v", i, key, werr, gerr)
			}
			if gerr != nil && !errors.Is(gerr, ErrInvalidJSON) {
				t.Fatalf("event %d: error does not wrap ErrInvalidJSON: %v", i, gerr)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("event %d (%s):\n got %s\nwant %s", i, key, got, want)
			}
		}
		ref, err := referenceWire(e, "snapshot", e.Snapshot)
		h, herr := Hash(e)
		if err != nil {
			if herr == nil {
				t.Fatalf("event %d: Hash accepted what marshalling refuses: %v", i, err)
			}
			continue
		}
		sum := sha256.Sum256(ref)
		if herr != nil || h != hex.EncodeToString(sum[:]) {
			t.Fatalf("event %d: Hash = %q, %v; want the SHA-256 of the marshalled form", i, h, herr)
		}
	}
}

// TestAppendWireRefusesBadValues: a delta value or snapshot that is not
// JSON, and a timestamp encoding/json cannot write, fail with
// ErrInvalidJSON as marshalling does.
func TestAppendWireRefusesBadValues(t *testing.T) {
	ok := Event{ID: "r.1", RunID: "r", Seq: 1, Kind: KindRun, TS: testTime, Meta: Meta{Schema: SchemaV2}}
	badValue := ok
	badValue.Delta = Patch{{Op: OpAdd, Path: "/a", Value: json.RawMessage(`{"a":`)}}
	badSnap := ok
	badSnap.Checkpoint, badSnap.Snapshot = true, json.RawMessage(`[1,`)
	badTime := ok
	badTime.TS = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, e := range map[string]Event{"value": badValue, "snapshot": badSnap, "ts": badTime} {
		if _, err := appendWire(nil, e, "snapshot", e.Snapshot, false); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("%s: error %v, want ErrInvalidJSON", name, err)
		}
		if _, err := Hash(e); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("%s: Hash error %v, want ErrInvalidJSON", name, err)
		}
		if _, err := Seal(e); err == nil {
			t.Errorf("%s: Seal accepted an event that does not encode", name)
		}
	}
}

// TestNextSealedMatchesEncode: the stored form and hash a chain computes
// once per event (without parsing its own values again) are Encode's and
// Hash's, for random state sequences with checkpoints every event and
// every 10; and a chain resumed from the history links the same way.
func TestNextSealedMatchesEncode(t *testing.T) {
	for seed := range uint64(40) {
		g := &stateGen{rng: rand.New(rand.NewPCG(seed, 3))}
		states := g.sequence(t, 30)[1:]
		for _, every := range []int{1, 10} {
			c := NewChain(Builder{RunID: fmt.Sprintf("seal-%d", seed), CheckpointEvery: every})
			var history []Event
			for i, st := range states {
				if i == len(states)/2 {
					// Resume halfway: the first hash comes from Hash.
					var err error
					if c, err = Resume(Builder{RunID: fmt.Sprintf("seal-%d", seed), CheckpointEvery: every}, history); err != nil {
						t.Fatal(err)
					}
				}
				s, err := c.NextSealed(st, KindRun, fmt.Sprintf("evt-%d", i), "<step> & \u2028", Meta{PolicyHash: "p"}, testTime.Add(time.Duration(i)*time.Millisecond))
				if err != nil {
					t.Fatal(err)
				}
				ev := s.Event()
				want, err := Encode(ev)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(s.Data(), want) {
					t.Fatalf("seed %d every %d event %d: stored form\n got %s\nwant %s", seed, every, i+1, s.Data(), want)
				}
				if h, err := Hash(ev); err != nil || h != s.Hash() {
					t.Fatalf("seed %d every %d event %d: hash %s, Hash %s (%v)", seed, every, i+1, s.Hash(), h, err)
				}
				again, err := Seal(ev)
				if err != nil || !bytes.Equal(again.Data(), s.Data()) || again.Hash() != s.Hash() {
					t.Fatalf("seed %d: Seal differs from NextSealed (%v)", seed, err)
				}
				history = append(history, ev)
			}
			if r := Verify(history); !r.OK() {
				t.Fatalf("seed %d every %d: %s", seed, every, r)
			}
		}
	}
}

// FuzzAppendWire compares appendWire with marshalling for arbitrary
// strings and values.
func FuzzAppendWire(f *testing.F) {
	f.Add("r.1", "<&>", `{"b":1,"a":2}`, `[1]`, int64(0))
	f.Add("\xff", "\u2028", ` "x" `, `{}`, int64(-1))
	f.Fuzz(func(t *testing.T, s, summary, value, snapshot string, ts int64) {
		e := Event{ID: s, RunID: summary, Seq: uint64(len(s)), Kind: Kind(summary), Cause: s, Summary: summary,
			TS: time.Unix(0, ts), Meta: Meta{Schema: s, PMRev: summary},
			Delta: Patch{{Op: s, Path: summary, From: s, Value: json.RawMessage(value)}}}
		if snapshot != "" {
			e.Checkpoint, e.Snapshot = true, json.RawMessage(snapshot)
		}
		want, werr := referenceWire(e, "snapshot", e.Snapshot)
		got, gerr := appendWire(nil, e, "snapshot", e.Snapshot, false)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("appendWire = %s, %v; marshalling = %s, %v", got, gerr, want, werr)
		}
	})
}

// TestNextSealedRefusesUnencodableEvent: an event that cannot be encoded
// (a timestamp past year 9999) is refused when it is built, and the chain
// does not move.
func TestNextSealedRefusesUnencodableEvent(t *testing.T) {
	c := NewChain(Builder{RunID: "far"})
	if _, err := c.NextSealed([]byte(`{"a":1}`), KindRun, "e1", "", Meta{}, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)); !errors.Is(err, ErrInvalidJSON) {
		t.Fatalf("error %v, want ErrInvalidJSON", err)
	}
	if c.Last() != nil || c.State() != nil {
		t.Fatal("the chain moved on a refused event")
	}
	if _, err := c.NextSealed([]byte(`{"a":1}`), KindRun, "e1", "", Meta{}, testTime); err != nil {
		t.Fatalf("the chain cannot go on after a refused event: %v", err)
	}
}
