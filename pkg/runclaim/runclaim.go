// Package runclaim makes a run id belong to one request. The first
// accepted `requested` event of a run claims its id in the codali-requests
// bucket with the request's digest; every later event of the run must carry
// that request. A second request for the same run id (whatever its
// attempt), or a phase event carrying another request, is refused with an
// error wrapping events.ErrConflict, so nobody can take over someone else's
// run by publishing on its subjects.
package runclaim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go/jetstream"
)

// Claim is what the bucket keeps per run id.
type Claim struct {
	// Digest is the digest of the run's request (events.Requested.Digest).
	Digest string `json:"digest"`
	// Source is the CloudEvents source of the request that claimed the run.
	Source string `json:"source"`
	// Time is when the request was produced.
	Time time.Time `json:"time"`
}

// Store reads and writes claims. It is safe for concurrent use.
type Store struct {
	kv jetstream.KeyValue
	// leader reads the bucket through its stream leader: an absent claim
	// is confirmed there (see Get).
	leader  jetstream.KeyValue
	work    jetstream.Stream
	project func(events.Requested) (string, error)
	cache   *claimCache
	now     func() time.Time
}

// Option customises a Store.
type Option func(*Store)

// WithClock makes the Store read the time from now (for its claim cache).
func WithClock(now func() time.Time) Option {
	return func(s *Store) { s.now = now }
}

// WithProjects makes Admit also check the project a phase event carries:
// it must be the one resolve gives for the run's request (config.Project),
// so no event can point a run at another project's state.
func WithProjects(resolve func(events.Requested) (string, error)) Option {
	return func(s *Store) { s.project = resolve }
}

// Open binds the codali-requests bucket (created by bus.Provision).
func Open(ctx context.Context, js jetstream.JetStream, opts ...Option) (*Store, error) {
	kv, err := js.KeyValue(ctx, events.BucketRequests)
	if err != nil {
		return nil, fmt.Errorf("could not open bucket %s: %w", events.BucketRequests, err)
	}
	work, err := js.Stream(ctx, events.StreamWork)
	if err != nil {
		return nil, fmt.Errorf("could not open stream %s: %w", events.StreamWork, err)
	}
	status, err := kv.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("could not read bucket %s: %w", events.BucketRequests, err)
	}
	s := &Store{kv: kv, leader: bus.LeaderReads(js, kv), work: work, cache: newClaimCache(status.TTL()), now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Get returns the claim of a run; ok is false when the run id is not
// claimed. A claim read once is trusted for a while (see claimCacheFor)
// without reading the bucket again; an absent one is always read again,
// and confirmed by the bucket's leader: any replica may answer a read,
// and one that has not applied a claim just made (the run's next event
// is handled at once, by another service) would have the event refused
// for good. A claim, once made, never changes, so a claim read from any
// replica is the claim.
func (s *Store) Get(ctx context.Context, runID string) (Claim, bool, error) {
	now := s.now()
	if c, ok := s.cache.get(runID, now); ok {
		return c, true, nil
	}
	// Bounded: a request lost with a dying cluster member must fail (and
	// be retried), not wait for the handler's whole deadline.
	rctx, cancel := context.WithTimeout(ctx, bus.RequestTimeout)
	defer cancel()
	e, err := s.kv.Get(rctx, runID)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		e, err = s.leader.Get(rctx, runID)
	}
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return Claim{}, false, nil
	}
	if err != nil {
		return Claim{}, false, fmt.Errorf("could not read the claim of run %s: %w", runID, err)
	}
	var c Claim
	if err := json.Unmarshal(e.Value(), &c); err != nil {
		return Claim{}, false, fmt.Errorf("claim of run %s is unreadable: %w", runID, err)
	}
	s.cache.put(runID, c, e.Created(), now)
	return c, true, nil
}

// Claimed reports whether the run id is claimed by a request, or will be:
// a readable request stored on the run's subject before stream sequence
// before claims it when handled (handlers run concurrently, so a malformed
// copy stored later may be handled first). before 0 looks at no stored
// request.
func (s *Store) Claimed(ctx context.Context, runID string, before uint64) (bool, error) {
	_, ok, err := s.Get(ctx, runID)
	if err != nil || ok || before == 0 {
		return ok, err
	}
	_, seq, found, err := s.firstRequest(ctx, runID)
	return found && seq < before, err
}

// Admit decides whether e belongs to its run. A readable `requested` of
// attempt 1 claims an unclaimed run id (an unreadable one claims nothing:
// the librarian ends that run with the reason); a redelivered request is
// admitted again. A phase event needs a claimed run and the claimed
// request; a `failed` event of an unclaimed run is admitted (it ends a run
// whose request could not be read). Refusals wrap events.ErrConflict;
// other errors are transient (the bucket could not be reached).
func (s *Store) Admit(ctx context.Context, e events.Envelope) error {
	kind, err := e.Kind()
	if err != nil {
		return err
	}
	runID := e.RunID()
	var early <-chan firstFound
	if kind == events.KindRequested && e.Attempt == 1 {
		if _, cached := s.cache.get(runID, s.now()); !cached {
			// A run's request, most likely its first: the request that
			// would claim the run is read at the same time as the claim.
			fctx, cancel := context.WithCancel(ctx)
			defer cancel()
			early = s.startFirstRequest(fctx, runID)
		}
	}
	c, ok, err := s.Get(ctx, runID)
	if err != nil {
		return err
	}
	if ok {
		// One decoding of the event's data serves both checks.
		run, req, readable := events.RunAndRequestOf(e)
		if err := events.CheckRequestBelongs(e, req, readable, c.Digest); err != nil {
			return err
		}
		return s.checkProject(e, run)
	}
	switch kind {
	case events.KindRequested:
		if e.Attempt != 1 {
			return events.CheckBelongs(e, "")
		}
		if _, readable := events.RequestOf(e); !readable {
			return nil
		}
		// The earliest request stored for the run id claims it, whichever
		// request is handled first: handlers run concurrently, and the
		// order they reach the bucket in is not the stream's.
		var f firstFound
		if early != nil {
			f = <-early
		} else {
			f.e, _, f.found, f.err = s.firstRequest(ctx, runID)
		}
		first, found, err := f.e, f.found, f.err
		if err != nil {
			return err
		}
		if !found {
			first = e
		}
		return s.claim(ctx, e, first)
	case events.KindFailed:
		return nil
	}
	return fmt.Errorf("%w: no request was accepted for run %s, so its %s event belongs to no run", events.ErrConflict, runID, kind)
}

// firstFound is what firstRequest found.
type firstFound struct {
	e     events.Envelope
	found bool
	err   error
}

// startFirstRequest runs firstRequest in the background; its result is
// sent on the returned channel (buffered: nobody need read it).
func (s *Store) startFirstRequest(ctx context.Context, runID string) <-chan firstFound {
	ch := make(chan firstFound, 1)
	go func() {
		var f firstFound
		f.e, _, f.found, f.err = s.firstRequest(ctx, runID)
		ch <- f
	}()
	return ch
}

// maxScan bounds how many stored requests of one run id firstRequest reads.
const maxScan = 32

// firstRequest returns the digest of the earliest readable attempt-1
// request stored on the run's requested subject. Requests stored before
// it were removed only after they were handled, and so after a claim was
// made: while the run is unclaimed, the earliest one is still stored.
func (s *Store) firstRequest(ctx context.Context, runID string) (events.Envelope, uint64, bool, error) {
	subject := events.KindRequested.Subject(runID)
	seq := uint64(1)
	for range maxScan {
		rctx, cancel := context.WithTimeout(ctx, bus.RequestTimeout)
		m, err := s.work.GetMsg(rctx, seq, jetstream.WithGetMsgSubject(subject))
		cancel()
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return events.Envelope{}, 0, false, nil
		}
		if err != nil {
			return events.Envelope{}, 0, false, fmt.Errorf("could not read the requests of run %s: %w", runID, err)
		}
		if e, err := (events.Decoder{MaxBytes: 8 << 20}).Decode(m.Subject, m.Data); err == nil && e.Attempt == 1 {
			if _, ok := events.RequestOf(e); ok {
				return e, m.Sequence, true, nil
			}
		}
		seq = m.Sequence + 1
	}
	return events.Envelope{}, 0, false, nil
}

// claim creates the run's claim for the request first (the earliest
// stored, which may not be e) and checks e against it; losing a race to
// another claimant falls back to comparing with the winner.
func (s *Store) claim(ctx context.Context, e, first events.Envelope) error {
	req, _ := events.RequestOf(first)
	digest := req.Digest()
	raw, err := json.Marshal(Claim{Digest: digest, Source: first.Source, Time: first.Time.UTC()})
	if err != nil {
		return fmt.Errorf("could not encode the claim of run %s: %w", e.RunID(), err)
	}
	cctx, cancel := context.WithTimeout(ctx, bus.RequestTimeout)
	_, err = s.kv.Create(cctx, e.RunID(), raw)
	cancel()
	if err == nil {
		now := s.now()
		s.cache.put(e.RunID(), Claim{Digest: digest, Source: first.Source, Time: first.Time.UTC()}, now, now)
		return events.CheckBelongs(e, digest)
	}
	if !bus.IsConflict(err) {
		return fmt.Errorf("could not claim run %s: %w", e.RunID(), err)
	}
	c, ok, gerr := s.Get(ctx, e.RunID())
	if gerr != nil {
		return gerr
	}
	if !ok {
		return fmt.Errorf("could not claim run %s: %w", e.RunID(), err)
	}
	return events.CheckBelongs(e, c.Digest)
}

// checkProject compares a phase event's project with its request's.
func (s *Store) checkProject(e events.Envelope, run events.Run) error {
	if s.project == nil {
		return nil
	}
	if k, _ := e.Kind(); k == events.KindRequested {
		return nil
	}
	if run.Project == "" || run.Request.IsZero() {
		// Not resolved yet, or a failed event carrying no request (an
		// unreadable event, an operator cancel): CheckBelongs accepted it.
		return nil
	}
	want, err := s.project(run.Request)
	if err != nil {
		return fmt.Errorf("%w: %s event of run %s: %w", events.ErrConflict, e.Type, e.RunID(), err)
	}
	if run.Project != want {
		return fmt.Errorf("%w: %s event of run %s carries project %q, its request's project is %q", events.ErrConflict, e.Type, e.RunID(), run.Project, want)
	}
	return nil
}
