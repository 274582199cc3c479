package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/codali-dev/codali/pkg/bus"
	"sort"
	"sync"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/nats-io/nats.go/jetstream"
)

// Summary is one line of `codali runs`: a run's latest status, kept in the
// codali-runs bucket by the recorder.
type Summary struct {
	RunID     string `json:"run_id"`
	Project   string `json:"project,omitempty"`
	Status    string `json:"status"`
	Phase     string `json:"phase,omitempty"`
	Attempt   int    `json:"attempt"`
	Request   string `json:"request,omitempty"`
	Repo      string `json:"repo,omitempty"`
	Integrity string `json:"integrity,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// Usage sums the run's model usage so far.
	Usage  *events.UsageTotal `json:"usage,omitempty"`
	Events int                `json:"events"`
	// Waiting is "approval" while the run is parked on undecided calls,
	// listed in Pending.
	Waiting string     `json:"waiting,omitempty"`
	Pending []Approval `json:"pending,omitempty"`
	// Spend is the model use per phase.
	Spend events.SpendByPhase `json:"spend,omitempty"`
	// LastSeq is the seq of the run's last history event; it only grows
	// (also across compaction), so a summary never goes backwards.
	LastSeq uint64 `json:"last_seq"`
	// FirstSeq is the seq the history starts at (above 1 after compaction)
	// and HeadHash the hash of its last event: kept outside the stream so
	// `codali rao verify` can detect a removed or rewritten tail and a
	// prefix removed without compaction.
	FirstSeq uint64    `json:"first_seq"`
	HeadHash string    `json:"head_hash"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
}

// SummaryOf summarises a state and its history.
func SummaryOf(st State, history []rao.Event) Summary {
	return summarize(st, history, rao.Hash)
}

// summarize is SummaryOf with the hash of the last event from head.
func summarize(st State, history []rao.Event, head func(rao.Event) (string, error)) Summary {
	s := Summary{RunID: st.RunID, Project: st.Project, Status: st.Status, Phase: st.Phase, Attempt: st.Attempt, Events: len(history)}
	if st.Request != nil {
		s.Request = oneLine(st.Request.Request, 120)
		s.Repo = st.Request.Repo.String()
	}
	if s.Pending = st.Pending(); len(s.Pending) > 0 {
		s.Waiting = "approval"
		if s.Pending[0].Reason != "" {
			s.Waiting = s.Pending[0].Reason
		}
	}
	s.Spend = st.Spend
	if st.Verdict != nil {
		s.Integrity, s.Reason = st.Verdict.Integrity, oneLine(st.Verdict.Reason, 200)
	}
	if len(st.Usage) > 0 {
		t := events.TotalUsage(st.Usage)
		s.Usage = &t
	}
	if len(history) > 0 {
		s.Created, s.Updated = history[0].TS, history[len(history)-1].TS
		s.LastSeq = history[len(history)-1].Seq
		s.FirstSeq = history[0].Seq
		if h, err := head(history[len(history)-1]); err == nil {
			s.HeadHash = h
		}
	}
	return s
}

// Runs is the codali-runs bucket.
type Runs struct {
	kv jetstream.KeyValue
	// leader is kv read through the bucket's leader (Latest).
	leader jetstream.KeyValue

	// written remembers, per run, the revision and LastSeq of the summary
	// this process wrote last, so the next Put can write at that revision
	// without reading it first; a write by anyone else makes that write
	// fail, and Put then reads as usual.
	mu      sync.Mutex
	written map[string]writtenSummary
}

type writtenSummary struct {
	rev, lastSeq uint64
}

// maxWrittenRuns bounds Runs.written; past it an arbitrary entry is
// dropped.
const maxWrittenRuns = 4096

// OpenRuns opens the bucket (created by bus.Provision).
func OpenRuns(ctx context.Context, js jetstream.JetStream) (*Runs, error) {
	kv, err := js.KeyValue(ctx, events.BucketRuns)
	if err != nil {
		return nil, fmt.Errorf("could not open bucket %s: %w", events.BucketRuns, err)
	}
	return &Runs{kv: kv, leader: bus.LeaderReads(js, kv), written: map[string]writtenSummary{}}, nil
}

// Put stores a summary unless the stored one is newer (a higher LastSeq),
// with a revision-checked write so that a recorder working from an older
// history never overwrites a newer summary.
func (r *Runs) Put(ctx context.Context, s Summary) error {
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*bus.RequestTimeout)
	defer cancel()
	r.mu.Lock()
	w, known := r.written[s.RunID]
	r.mu.Unlock()
	switch {
	case known && s.LastSeq >= w.lastSeq:
		if rev, err := r.kv.Update(ctx, s.RunID, raw, w.rev); err == nil {
			r.wrote(s, rev)
			return nil
		}
	case !known:
		// Most runs this process has not written yet are new: create
		// without reading first; one that exists is read below.
		if rev, err := r.kv.Create(ctx, s.RunID, raw); err == nil {
			r.wrote(s, rev)
			return nil
		}
	}
	for try := 0; try < 10; try++ {
		// Any replica may answer, and a lagging one shows an older
		// summary (or none): the write below is compare-and-set at the
		// revision read, so it fails and is tried again; an older
		// summary never has a higher LastSeq, so none is kept wrongly.
		cur, err := r.kv.Get(ctx, s.RunID)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			if rev, err := r.kv.Create(ctx, s.RunID, raw); err == nil {
				r.wrote(s, rev)
				return nil
			} else if !errors.Is(err, jetstream.ErrKeyExists) {
				return fmt.Errorf("could not store run summary: %w", err)
			}
			continue
		case err != nil:
			return fmt.Errorf("could not read run summary: %w", err)
		}
		var old Summary
		if json.Unmarshal(cur.Value(), &old) == nil && old.LastSeq > s.LastSeq {
			return nil // a newer summary is already stored
		}
		if rev, err := r.kv.Update(ctx, s.RunID, raw, cur.Revision()); err == nil {
			r.wrote(s, rev)
			return nil
		}
	}
	return fmt.Errorf("could not store run summary of %s: too many concurrent writers", s.RunID)
}

// wrote remembers the revision of a summary this process stored.
func (r *Runs) wrote(s Summary, rev uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.written == nil {
		r.written = map[string]writtenSummary{}
	}
	if _, ok := r.written[s.RunID]; !ok && len(r.written) >= maxWrittenRuns {
		for k := range r.written {
			delete(r.written, k)
			break
		}
	}
	r.written[s.RunID] = writtenSummary{rev: rev, lastSeq: s.LastSeq}
}

// ErrUnknownRun: no summary for the run.
var ErrUnknownRun = errors.New("unknown run")

// Get returns a run's summary, or an error wrapping ErrUnknownRun. Any
// replica of the bucket may answer, so on a cluster it can be an older
// summary than the recorder's last (or none yet) for a moment: right for
// showing a run, and for polling it; a decision taken on the summary
// uses Latest.
func (r *Runs) Get(ctx context.Context, runID string) (Summary, error) {
	return r.get(ctx, r.kv, runID)
}

// Latest is Get answered by the bucket's leader: the summary the recorder
// stored last, never an older one a lagging replica still has (see
// bus.LeaderGet).
func (r *Runs) Latest(ctx context.Context, runID string) (Summary, error) {
	return r.get(ctx, r.leader, runID)
}

func (r *Runs) get(ctx context.Context, kv jetstream.KeyValue, runID string) (Summary, error) {
	ctx, cancel := context.WithTimeout(ctx, bus.RequestTimeout)
	defer cancel()
	e, err := kv.Get(ctx, runID)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return Summary{}, fmt.Errorf("%w: %s", ErrUnknownRun, runID)
	}
	if err != nil {
		return Summary{}, fmt.Errorf("could not read run %s: %w", runID, err)
	}
	var s Summary
	if err := json.Unmarshal(e.Value(), &s); err != nil {
		return Summary{}, fmt.Errorf("run %s has an unreadable summary: %w", runID, err)
	}
	return s, nil
}

// List returns up to limit summaries, most recently updated first.
func (r *Runs) List(ctx context.Context, limit int) ([]Summary, error) {
	lister, err := r.kv.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("could not list runs: %w", err)
	}
	var out []Summary
	for k := range lister.Keys() {
		s, err := r.Get(ctx, k)
		if err != nil {
			continue // deleted or expired between list and get
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].RunID > out[j].RunID
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// CrossCheck compares a history with the summary the recorder kept for it
// and describes every disagreement: events removed from the end, a
// rewritten last event, or events removed from the start other than by
// the recorder's compaction.
func CrossCheck(s Summary, history []rao.Event) []string {
	if len(history) == 0 || s.LastSeq == 0 {
		return nil
	}
	var out []string
	first, last := history[0], history[len(history)-1]
	switch {
	case last.Seq < s.LastSeq:
		out = append(out, fmt.Sprintf("removed: the history ends at event %d but the recorder wrote up to %d", last.Seq, s.LastSeq))
	case last.Seq == s.LastSeq && s.HeadHash != "":
		if h, err := rao.Hash(last); err != nil || h != s.HeadHash {
			out = append(out, fmt.Sprintf("modified: event %d does not hash to what the recorder wrote", last.Seq))
		}
	}
	if s.FirstSeq > 0 && first.Seq > s.FirstSeq {
		out = append(out, fmt.Sprintf("removed: the history starts at event %d but the recorder kept it from %d", first.Seq, s.FirstSeq))
	}
	return out
}
