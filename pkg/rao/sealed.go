package rao

import "fmt"

// Sealed is an event together with its stored form (Encode) and its hash
// (Hash), computed once: a writer appends Data and links the next event
// to Hash without encoding the event again. Make one with Seal or
// Chain.NextSealed; the zero Sealed holds no event.
type Sealed struct {
	ev   Event
	data []byte
	hash string
}

// Event returns the event. Its slices are shared with the Sealed: do not
// modify them.
func (s Sealed) Event() Event { return s.ev }

// Data returns the event's stored form, Encode(s.Event()). Do not modify
// it.
func (s Sealed) Data() []byte { return s.data }

// Hash returns Hash(s.Event()).
func (s Sealed) Hash() string { return s.hash }

// Seal validates and encodes any event (errors are those of Encode and
// Hash).
func Seal(e Event) (Sealed, error) {
	data, err := Encode(e)
	if err != nil {
		return Sealed{}, err
	}
	h, err := Hash(e)
	if err != nil {
		return Sealed{}, err
	}
	return Sealed{ev: e, data: data, hash: h}, nil
}

// sealTrusted seals an event Builder.next made: its delta values and
// snapshot are canonical and it is valid, so it is encoded without being
// parsed or validated again. Without a snapshot the stored form is the
// hashed form; a checkpoint's stored form carries the compressed snapshot.
// Its checkpoint snapshot is compressed with a writer of zs (nil: a new
// one).
func sealTrusted(e Event, zs *Compressors) (Sealed, error) {
	plain, err := appendWire(nil, e, "snapshot", e.Snapshot, true)
	if err != nil {
		return Sealed{}, err
	}
	s := Sealed{ev: e, data: plain, hash: hashWire(plain)}
	if e.Checkpoint {
		z := zs.compress(e.Snapshot)
		if s.data, err = appendWire(make([]byte, 0, len(plain)-len(e.Snapshot)+len(z)+16), e, "snapshot_z", []byte(z), true); err != nil {
			return Sealed{}, fmt.Errorf("could not encode event %s: %w", e.ID, err)
		}
	}
	return s, nil
}
