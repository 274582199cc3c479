package events

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrConflict is wrapped by the refusal of an event that does not belong to
// its run: a second `requested` for a run id that already has one, a
// `requested` with an attempt other than 1, or a phase event whose request
// differs from the run's recorded request. Such an event is refused and
// recorded; it never changes the run.
var ErrConflict = errors.New("event conflicts with the run's recorded request")

// Digest is the hex SHA-256 of the request's canonical JSON encoding (the
// encoding of the decoded struct, so it does not depend on how the
// publisher formatted its JSON). It identifies the request a run was
// started with; every later event of the run carries the same request.
func (r Requested) Digest() string {
	raw, err := json.Marshal(r)
	if err != nil {
		// A Requested holds only strings, an int pointer and a string map:
		// it always marshals.
		panic(fmt.Sprintf("events: marshal request: %v", err))
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// IsZero reports whether the request is empty (a `failed` event that could
// not read its run's request carries the zero request).
func (r Requested) IsZero() bool {
	return r.Request == "" && r.Repo == (RepoRef{}) && r.Options.MaxRetries == nil &&
		r.Options.Project == "" && len(r.Options.Labels) == 0 && r.Options.Budget == nil && r.Options.Fork == nil
}

// RequestOf returns the request an event claims to belong to: the data of
// a `requested` event, or the run description's request of a phase event.
// ok is false when a `requested` event's data cannot be read.
func RequestOf(e Envelope) (req Requested, ok bool) {
	if k, _ := e.Kind(); k == KindRequested {
		if err := json.Unmarshal(e.Data, &req); err != nil {
			return Requested{}, false
		}
		return req, true
	}
	return RunOf(e).Request, true
}

// CheckBelongs reports, with an error wrapping ErrConflict, whether e does
// not belong to the run whose recorded request has the given digest: a
// `requested` event must be attempt 1 and carry that very request; a phase
// event must carry it in its run description. A `failed` event carrying no
// request (a service could not read the event it failed, or an operator
// cancel) and an approval decision carrying none belong to any run.
func CheckBelongs(e Envelope, digest string) error {
	if kind, _ := e.Kind(); kind == KindRequested && e.Attempt != 1 {
		return CheckRequestBelongs(e, Requested{}, false, digest)
	}
	req, ok := RequestOf(e)
	return CheckRequestBelongs(e, req, ok, digest)
}

// RunAndRequestOf returns RunOf(e) and RequestOf(e), decoding e's data
// once.
func RunAndRequestOf(e Envelope) (run Run, req Requested, ok bool) {
	if k, _ := e.Kind(); k == KindRequested {
		req, ok = RequestOf(e)
		if !ok {
			return Run{}, Requested{}, false
		}
		return Run{Request: req}, req, true
	}
	run = RunOf(e)
	return run, run.Request, true
}

// CheckRequestBelongs is CheckBelongs for a caller that has read e's
// request already: req and ok as RequestOf(e) returns them.
func CheckRequestBelongs(e Envelope, req Requested, ok bool, digest string) error {
	kind, err := e.Kind()
	if err != nil {
		return err
	}
	if kind == KindRequested && e.Attempt != 1 {
		return fmt.Errorf("%w: a run's request is attempt 1, got attempt %d for run %s", ErrConflict, e.Attempt, e.RunID())
	}
	switch {
	case !ok:
		return fmt.Errorf("%w: run %s already has a request; this one is unreadable", ErrConflict, e.RunID())
	case (kind == KindFailed || kind == KindApprovalDecided) && req.IsZero():
		return nil
	case req.Digest() != digest:
		if kind == KindRequested {
			return fmt.Errorf("%w: run %s already has a different request; choose a new run id", ErrConflict, e.RunID())
		}
		return fmt.Errorf("%w: %s event of run %s carries another request", ErrConflict, kind, e.RunID())
	}
	return nil
}
