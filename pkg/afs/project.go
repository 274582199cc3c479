package afs

import (
	"fmt"
	"time"

	"github.com/codali-dev/codali/pkg/cognition"
)

// ProjectInput is what a .context/ is projected from.
type ProjectInput struct {
	// Producer is written into every file's metadata.
	Producer Producer
	// Entries are the run's recorded history entries, in order.
	Entries []Entry
	// Base is the .context/ the run started from (the repository's own
	// files); it may be empty.
	Base Files
	// Cognition, when set, is the Cortex state goals.json is projected
	// from; otherwise the base's goals.json is kept.
	Cognition *cognition.CognitionState
	// Now stamps last_updated and is the time emotions are decayed to;
	// zero means the timestamp of the last entry (or the Unix epoch when
	// there is none), so the projection depends on its input only.
	Now time.Time
}

// Project folds the entries into the canonical files and merges them over
// the base (§5: dedupe by id/key, newest updated_at wins). It is a pure
// function of its input: the same input gives the same files. Conflicts
// between the base and the run are returned for logging.
func Project(in ProjectInput) (Files, []Conflict) {
	f := newFold(in.Base)
	for _, e := range in.Entries {
		f.apply(e)
	}
	now := in.Now
	if now.IsZero() {
		if t, ok := ParseTime(f.last); ok {
			now = t
		} else {
			now = time.Unix(0, 0).UTC()
		}
	}
	meta := NewMeta(in.Producer, now)
	run := f.files(meta)
	out, conflicts := mergeFiles(ruleNewest, in.Base, run)
	// The run's fold owns metacognition and the emotion session.
	out.Metacognition = run.Metacognition
	out.Emotions.Session = run.Emotions.Session
	out.Emotions.Decay = run.Emotions.Decay
	// The run's rules are the automatic triggers.
	out.Triggers.Automatic = run.Triggers.Automatic
	for _, p := range []*Meta{&out.State.Meta, &out.Emotions.Meta, &out.Epistemic.Meta, &out.Triggers.Meta} {
		*p = meta
	}
	decayed, _ := out.Emotions.DecayAndPrune(now)
	out.Emotions = &decayed
	if in.Cognition != nil {
		g := GoalsFromCognition(*in.Cognition)
		g.Meta = meta
		out.Goals = &g
		// L1 memory entries are the project's working facts.
		for i, m := range in.Cognition.L1Memory.Entries {
			out.Epistemic.Add(EpistemicItem{ID: fmt.Sprintf("l1-%d", i+1), Kind: KindWorkingFact, Statement: m, Confidence: 0.6,
				Source: "cortex l1 memory", UpdatedAt: Timestamp(now)})
		}
	}
	out.History = mergeHistory(in.Base.History, in.Entries)
	snap := f.snapshot(nil, Timestamp(now))
	out.Snapshot = &snap
	return out, conflicts
}

// files is the fold's own view, every file stamped with meta.
func (f *fold) files(meta Meta) Files {
	st := f.state
	st.Entries = append([]StateEntry{}, f.state.Entries...)
	st.Meta = meta
	mc := f.meta
	mc.Meta = meta
	mc.SpinDetection.RecentActions = append([]string{}, f.meta.SpinDetection.RecentActions...)
	mc.SelfCorrections = append([]SelfCorrection{}, f.meta.SelfCorrections...)
	em := f.emo.clone()
	em.Meta = meta
	ep := f.epi
	ep.Meta = meta
	tr := TriggersFile{Meta: meta, Triggers: f.trig.list(), Automatic: automaticTriggers(f.meta)}
	return Files{State: &st, Metacognition: &mc, Emotions: &em, Epistemic: &ep, Triggers: &tr}
}

// mergeHistory appends the run's entries to the base history, skipping
// entries whose id the base already holds.
func mergeHistory(base, run []Entry) []Entry {
	seen := map[string]bool{}
	out := make([]Entry, 0, len(base)+len(run))
	for _, e := range base {
		seen[e.ID] = true
		out = append(out, e)
	}
	for _, e := range run {
		if !seen[e.ID] {
			seen[e.ID] = true
			out = append(out, e)
		}
	}
	return out
}
