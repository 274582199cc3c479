package rao

import (
	"fmt"
	"strings"
)

// BreakKind names what Verify found.
type BreakKind string

// Finding kinds. All but BreakCompacted are breaks of the history.
const (
	// BreakCompacted is informational: the history starts at a checkpoint
	// after seq 1 because older events were compacted away.
	BreakCompacted BreakKind = "compacted"
	// BreakMissingBaseline: the history starts after seq 1 at an event
	// that is not a checkpoint, so its start cannot be rebuilt.
	BreakMissingBaseline BreakKind = "missing_baseline"
	// BreakInvalidEvent: the event fails Event.Validate.
	BreakInvalidEvent BreakKind = "invalid_event"
	// BreakRunMismatch: the event belongs to another run.
	BreakRunMismatch BreakKind = "run_mismatch"
	// BreakGap: events are missing before this one (removed).
	BreakGap BreakKind = "seq_gap"
	// BreakDuplicate: this seq already appeared (inserted event).
	BreakDuplicate BreakKind = "duplicate_seq"
	// BreakReordered: this event comes after an event with a higher seq.
	BreakReordered BreakKind = "reordered"
	// BreakBase: base is not the ID of the preceding event.
	BreakBase BreakKind = "base_mismatch"
	// BreakHash: prev_hash is not the hash of the preceding event, so the
	// preceding event (or this link) was modified, removed or inserted.
	BreakHash BreakKind = "hash_mismatch"
	// BreakSnapshot: a checkpoint snapshot differs from the state rebuilt
	// from the deltas before it.
	BreakSnapshot BreakKind = "snapshot_mismatch"
	// BreakDelta: the delta does not apply to the rebuilt state.
	BreakDelta BreakKind = "delta_failed"
)

// Finding is one observation of Verify.
type Finding struct {
	// Seq is the seq of the event the finding is about.
	Seq uint64
	// Kind classifies the finding.
	Kind BreakKind
	// Detail explains it for people.
	Detail string
}

// Informational reports whether the finding is not a break.
func (f Finding) Informational() bool { return f.Kind == BreakCompacted }

// String renders the finding on one line.
func (f Finding) String() string {
	return fmt.Sprintf("seq %d: %s: %s", f.Seq, f.Kind, f.Detail)
}

// Report is the result of Verify.
type Report struct {
	// RunID is the run of the first event.
	RunID string
	// Events is the number of events checked.
	Events int
	// FirstSeq and LastSeq are the seqs of the first and last event as
	// given.
	FirstSeq, LastSeq uint64
	// Head is the hash of the last event. A hash chain cannot show that the
	// newest event was modified or that the whole chain was rewritten;
	// compare Head with a copy kept elsewhere for that.
	Head string
	// Findings lists breaks and informational notes in event order.
	Findings []Finding
}

// OK reports whether the report holds no break (informational findings
// such as BreakCompacted are fine).
func (r Report) OK() bool { return len(r.Breaks()) == 0 }

// Breaks returns the findings that are breaks.
func (r Report) Breaks() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if !f.Informational() {
			out = append(out, f)
		}
	}
	return out
}

// Has reports whether the report holds a finding of kind k at seq.
func (r Report) Has(seq uint64, k BreakKind) bool {
	for _, f := range r.Findings {
		if f.Seq == seq && f.Kind == k {
			return true
		}
	}
	return false
}

// String renders the report, one finding per line.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "run %s: %d events (seq %d..%d), head %s", r.RunID, r.Events, r.FirstSeq, r.LastSeq, r.Head)
	if r.OK() {
		b.WriteString(", OK")
	}
	for _, f := range r.Findings {
		b.WriteString("\n  ")
		b.WriteString(f.String())
	}
	return b.String()
}

// Verify checks a run's history as given (oldest first) and reports every
// sign of tampering: invalid events, events of another run, missing,
// duplicate or reordered seqs, base and prev_hash links that do not match
// the preceding event, deltas that do not apply and checkpoint snapshots
// that differ from the state rebuilt from the deltas. A history that
// starts at a checkpoint after seq 1 (compaction) is noted as
// BreakCompacted, which is not a break. After a break that leaves the
// state unknown, rebuilding resumes at the next checkpoint. Verify never
// fails; an empty history gives an empty, OK report.
func Verify(events []Event) Report {
	var r Report
	if len(events) == 0 {
		return r
	}
	v := verifier{r: &r, present: map[uint64]int{}, seen: map[uint64]bool{}}
	r.RunID, r.Events = events[0].RunID, len(events)
	r.FirstSeq, r.LastSeq = events[0].Seq, events[len(events)-1].Seq
	for _, e := range events {
		v.present[e.Seq]++
	}
	for i, e := range events {
		v.checkEvent(e)
		if i == 0 {
			v.first(e)
		} else {
			v.link(events[i-1], e)
		}
		v.seen[e.Seq] = true
		v.maxSeq = max(v.maxSeq, e.Seq)
	}
	if h, err := Hash(events[len(events)-1]); err == nil {
		r.Head = h
	}
	return r
}

// verifier holds Verify's running state.
type verifier struct {
	r       *Report
	present map[uint64]int  // how often each seq occurs
	seen    map[uint64]bool // seqs met so far
	maxSeq  uint64
	state   []byte // rebuilt state after the last event (compact JSON); nil if unknown
}

func (v *verifier) add(seq uint64, k BreakKind, format string, args ...any) {
	v.r.Findings = append(v.r.Findings, Finding{Seq: seq, Kind: k, Detail: fmt.Sprintf(format, args...)})
}

func (v *verifier) checkEvent(e Event) {
	if err := e.Validate(); err != nil {
		v.add(e.Seq, BreakInvalidEvent, "%s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if e.RunID != v.r.RunID {
		v.add(e.Seq, BreakRunMismatch, "run %q in a history of run %q", e.RunID, v.r.RunID)
	}
}

// first checks the first event and sets up the state.
func (v *verifier) first(e Event) {
	if e.Seq > 1 {
		if e.Checkpoint {
			v.add(e.Seq, BreakCompacted, "history compacted before seq %d", e.Seq)
			v.resync(e)
		} else {
			v.add(e.Seq, BreakMissingBaseline, "history starts at seq %d, which is not a checkpoint", e.Seq)
		}
		return
	}
	if e.Base != "" {
		v.add(e.Seq, BreakBase, "first event has base %q", e.Base)
	}
	if e.PrevHash != "" {
		v.add(e.Seq, BreakHash, "first event has prev_hash %s", e.PrevHash)
	}
	v.state = []byte(emptyState)
	v.advance(e)
}

// link checks e against the event p listed before it and advances the
// state.
func (v *verifier) link(p, e Event) {
	regular := true
	switch {
	case v.seen[e.Seq]:
		v.add(e.Seq, BreakDuplicate, "seq %d occurs more than once", e.Seq)
		regular = false
	case e.Seq < v.maxSeq:
		v.add(e.Seq, BreakReordered, "seq %d comes after seq %d", e.Seq, v.maxSeq)
		regular = false
	case e.Seq > v.maxSeq+1:
		var missing []uint64
		for s := v.maxSeq + 1; s < e.Seq; s++ {
			if v.present[s] == 0 {
				missing = append(missing, s)
			}
		}
		if len(missing) > 0 {
			v.add(e.Seq, BreakGap, "%d event(s) missing before seq %d: %s", len(missing), e.Seq, seqRanges(missing))
		}
		regular = false
	}
	if e.Seq != p.Seq+1 {
		regular = false
	}
	if want := p.ID; e.Base != want {
		v.add(e.Seq, BreakBase, "base %q, but the preceding event is %q", e.Base, want)
	}
	if h, err := Hash(p); err != nil {
		v.add(e.Seq, BreakHash, "preceding event seq %d cannot be hashed: %v", p.Seq, err)
	} else if e.PrevHash != h {
		v.add(e.Seq, BreakHash, "prev_hash does not match the preceding event seq %d (that event or this link was altered)", p.Seq)
	}
	if !regular {
		v.state = nil
	}
	v.advance(e)
}

// advance applies e's delta to the known state and checks checkpoints;
// with an unknown state it resumes from e's snapshot if e is a checkpoint.
func (v *verifier) advance(e Event) {
	if v.state == nil {
		v.resync(e)
		return
	}
	st, err := applyCompact(v.state, e.Delta)
	if err != nil {
		v.add(e.Seq, BreakDelta, "delta does not apply: %v", err)
		v.state = nil
		v.resync(e)
		return
	}
	v.state = st
	if !e.Checkpoint {
		return
	}
	if !sameJSON(e.Snapshot, st) {
		v.add(e.Seq, BreakSnapshot, "checkpoint snapshot differs from the state rebuilt from the deltas")
	}
}

// resync takes the state from e's snapshot when e is a valid checkpoint.
func (v *verifier) resync(e Event) {
	if !e.Checkpoint {
		return
	}
	if snap, err := CanonicalizeJSON(e.Snapshot); err == nil {
		v.state = snap
	}
}

// seqRanges renders sorted seqs compactly, e.g. "3-5, 9".
func seqRanges(seqs []uint64) string {
	var parts []string
	for i := 0; i < len(seqs); {
		j := i
		for j+1 < len(seqs) && seqs[j+1] == seqs[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, fmt.Sprint(seqs[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", seqs[i], seqs[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
