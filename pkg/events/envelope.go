package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// SpecVersion is the only CloudEvents version Codali speaks.
const SpecVersion = "1.0"

// ContentTypeJSON is the datacontenttype of every Codali event.
const ContentTypeJSON = "application/json"

// DefaultMaxEventBytes is the default limit on an encoded event (1 MiB).
const DefaultMaxEventBytes = 1 << 20

// Envelope is a CloudEvents 1.0 event in structured JSON mode, with Codali's
// extension attributes attempt and traceparent.
type Envelope struct {
	// SpecVersion is always "1.0".
	SpecVersion string `json:"specversion"`
	// ID is the deterministic id <run_id>.<event>.<attempt>.
	ID string `json:"id"`
	// Source identifies the producer, e.g. "codali/librarian" or "agent/ci".
	Source string `json:"source"`
	// Type is dev.codali.run.<event>.
	Type string `json:"type"`
	// Subject is the run id.
	Subject string `json:"subject"`
	// Time is when the event was produced.
	Time time.Time `json:"time"`
	// DataContentType is "application/json".
	DataContentType string `json:"datacontenttype"`
	// Attempt is the run's attempt number, starting at 1; a retry starts the
	// next attempt.
	Attempt int `json:"attempt"`
	// TraceParent is a W3C trace context carried through the whole run.
	TraceParent string `json:"traceparent,omitempty"`
	// Data is the event's payload.
	Data json.RawMessage `json:"data"`
}

// RunID is the run the event belongs to (the CloudEvents subject).
func (e Envelope) RunID() string { return e.Subject }

// Kind parses the event's type into a Kind.
func (e Envelope) Kind() (Kind, error) { return KindFromType(e.Type) }

// NATSSubject is the subject the event is published to.
func (e Envelope) NATSSubject() (string, error) {
	k, err := e.Kind()
	if err != nil {
		return "", err
	}
	return k.Subject(e.Subject), nil
}

// New builds the envelope of a run event. data is marshalled to JSON; the
// id is the deterministic MsgID. It returns an error wrapping ErrBadRunID,
// ErrBadAttempt or ErrInvalidPayload.
func New(runID string, kind Kind, attempt int, source string, now time.Time, data any) (Envelope, error) {
	if err := ValidateRunID(runID); err != nil {
		return Envelope{}, err
	}
	if attempt < 1 {
		return Envelope{}, fmt.Errorf("%w: %d", ErrBadAttempt, attempt)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return Envelope{}, fmt.Errorf("%w: could not marshal %s data: %w", ErrInvalidPayload, kind, err)
	}
	return Envelope{
		SpecVersion:     SpecVersion,
		ID:              MsgID(runID, kind, attempt),
		Source:          source,
		Type:            kind.Type(),
		Subject:         runID,
		Time:            now.UTC(),
		DataContentType: ContentTypeJSON,
		Attempt:         attempt,
		Data:            raw,
	}, nil
}

// Follow builds the next event of the same run, carrying the trace context.
func (e Envelope) Follow(kind Kind, attempt int, source string, now time.Time, data any) (Envelope, error) {
	next, err := New(e.Subject, kind, attempt, source, now, data)
	if err != nil {
		return Envelope{}, err
	}
	next.TraceParent = e.TraceParent
	return next, nil
}

// Encode marshals the envelope to JSON after checking it would decode again:
// an event this package produces is always one it accepts. It returns an
// error wrapping ErrInvalidEvent or ErrTooLarge when maxBytes (>0) is exceeded.
func (e Envelope) Encode(maxBytes int) ([]byte, error) {
	raw, err := e.marshal()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidEvent, err)
	}
	if maxBytes > 0 && len(raw) > maxBytes {
		return nil, fmt.Errorf("%w: %w: %d bytes encoded (limit %d)", ErrInvalidEvent, ErrTooLarge, len(raw), maxBytes)
	}
	if err := e.validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidEvent, err)
	}
	return raw, nil
}

// Fits reports whether the event encodes within maxBytes (a payload that
// does not encode for another reason is reported as fitting; Encode then
// returns that error).
func (e Envelope) Fits(maxBytes int) bool {
	if maxBytes <= 0 || e.encodedBound() <= maxBytes {
		return true // without encoding it: Encode could not find it too large
	}
	_, err := e.Encode(maxBytes)
	return !errors.Is(err, ErrTooLarge)
}

// encodedBound is an upper bound of the length of e's encoding: the
// member names, the time and the attempt take less than 256 bytes, a
// string at most 6 bytes per byte and its quotes (a \u00XX escape; an
// invalid UTF-8 byte becomes \ufffd), and the data at most 6 bytes per
// byte ("null" when empty: compacting drops bytes and only escapes <, >,
// & and U+2028/U+2029 as \u00XX and \u202X).
func (e Envelope) encodedBound() int {
	strs := len(e.SpecVersion) + len(e.ID) + len(e.Source) + len(e.Type) + len(e.Subject) + len(e.DataContentType) + len(e.TraceParent)
	return 256 + 6*strs + 6*max(len(e.Data), 1)
}

// Decoder decodes events strictly. The zero value uses DefaultMaxEventBytes.
type Decoder struct {
	// MaxBytes is the largest accepted message; 0 means DefaultMaxEventBytes.
	MaxBytes int
}

// Decode parses a message that arrived on the NATS subject natsSubject. It
// rejects, with a *DecodeError wrapping the matching sentinel: messages over
// the size limit, bad JSON, an unknown specversion, a missing id, source,
// type or subject, an attempt below 1, a type that names no run event, and an
// envelope whose run id or event differs from the NATS subject.
func (d Decoder) Decode(natsSubject string, msg []byte) (Envelope, error) {
	runID, kind, subjErr := ParseSubject(natsSubject)
	fail := func(err error) (Envelope, error) {
		return Envelope{}, &DecodeError{Subject: natsSubject, RunID: runID, Err: err}
	}
	limit := d.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxEventBytes
	}
	if len(msg) > limit {
		return fail(fmt.Errorf("%w: %d bytes (limit %d)", ErrTooLarge, len(msg), limit))
	}
	if subjErr != nil {
		return fail(subjErr)
	}
	e, err := decodeEnvelope(msg)
	if err != nil {
		return fail(err)
	}
	if err := e.validate(); err != nil {
		return fail(err)
	}
	if e.Subject != runID {
		return fail(fmt.Errorf("%w: envelope subject %q, NATS subject run id %q", ErrSubjectMismatch, e.Subject, runID))
	}
	if ek, _ := e.Kind(); ek != kind {
		return fail(fmt.Errorf("%w: envelope type %q on a %q subject", ErrSubjectMismatch, e.Type, kind))
	}
	if want := MsgID(runID, kind, e.Attempt); e.ID != want && !kind.Keyed() {
		return fail(fmt.Errorf("%w: id %q must be <run_id>.<event>.<attempt> = %q", ErrSubjectMismatch, e.ID, want))
	} else if kind.Keyed() {
		if err := checkKeyedID(e.ID, want); err != nil {
			return fail(err)
		}
	}
	return e, nil
}

func (e Envelope) validate() error {
	switch {
	case e.SpecVersion == "":
		return fmt.Errorf("%w: specversion", ErrSpecVersion)
	case e.SpecVersion != SpecVersion:
		return fmt.Errorf("%w: %q (want %q)", ErrSpecVersion, e.SpecVersion, SpecVersion)
	case e.ID == "":
		return fmt.Errorf("%w: id", ErrMissingAttribute)
	case e.Source == "":
		return fmt.Errorf("%w: source", ErrMissingAttribute)
	case e.Type == "":
		return fmt.Errorf("%w: type", ErrMissingAttribute)
	case e.Subject == "":
		return fmt.Errorf("%w: subject (the run id)", ErrMissingAttribute)
	case e.Attempt < 1:
		return fmt.Errorf("%w: attempt %d (must be >= 1)", ErrBadAttempt, e.Attempt)
	}
	if e.DataContentType != "" && e.DataContentType != ContentTypeJSON {
		return fmt.Errorf("%w: datacontenttype %q (want %q)", ErrInvalidPayload, e.DataContentType, ContentTypeJSON)
	}
	if err := ValidateRunID(e.Subject); err != nil {
		return err
	}
	if _, err := e.Kind(); err != nil {
		return err
	}
	if len(e.Data) == 0 || string(e.Data) == "null" {
		return fmt.Errorf("%w: data is missing", ErrInvalidPayload)
	}
	return nil
}

// DecodeData unmarshals the event's data into v and validates it when v
// implements Validator. Unknown fields are ignored, so producers may add
// fields without breaking older consumers. It returns an error wrapping
// ErrInvalidPayload.
func DecodeData(e Envelope, v any) error {
	if err := json.Unmarshal(e.Data, v); err != nil {
		return fmt.Errorf("%w: %s data: %w", ErrInvalidPayload, e.Type, err)
	}
	if val, ok := v.(Validator); ok {
		if err := val.Validate(); err != nil {
			return fmt.Errorf("%w: %s data: %w", ErrInvalidPayload, e.Type, err)
		}
	}
	return nil
}

// Validator is implemented by payloads that check their own invariants.
type Validator interface {
	Validate() error
}
