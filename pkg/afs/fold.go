package afs

import (
	"encoding/json"
	"strings"
)

// Tags set on history entries by Session and read back by the fold.
const (
	// TagBlocked marks a tool call a gate refused.
	TagBlocked = "blocked"
	// TagSpinning marks a tool call that reached the spinning threshold.
	TagSpinning = "spinning"
	// TagHelpSeeking marks a tool call after which help-seeking was raised.
	TagHelpSeeking = "help_seeking"
)

// CognitiveInput is the input of a cognitive_state entry: the snapshot
// taken before a tool call.
type CognitiveInput struct {
	Call           Call          `json:"call"`
	FilesRead      []string      `json:"files_read"`
	Hazards        []HazardMatch `json:"hazards"`
	Strategy       string        `json:"strategy"`
	ProgressStatus string        `json:"progress_status"`
	CognitiveLoad  float64       `json:"cognitive_load"`
	Anxiety        float64       `json:"anxiety"`
	Confidence     float64       `json:"confidence"`
}

// fold is the cognitive state derived from history entries, one entry at a
// time. Session and Project share it, so a live session and the projection
// of its entries always agree.
type fold struct {
	meta  Metacognition
	emo   Emotions
	state StateFile
	epi   Epistemic
	trig  triggers
	// last is the timestamp of the last entry folded in.
	last string
}

func newFold(base Files) *fold {
	f := &fold{meta: NewMetacognition(), emo: NewEmotions(), epi: NewEpistemic(), state: StateFile{Entries: []StateEntry{}}, trig: newTriggers()}
	if m := base.Metacognition; m != nil {
		if m.SpinDetection.SpinningThreshold > 0 {
			f.meta.SpinDetection.SpinningThreshold = m.SpinDetection.SpinningThreshold
		}
		if m.HelpSeeking.FailureThreshold > 0 {
			f.meta.HelpSeeking.FailureThreshold = m.HelpSeeking.FailureThreshold
		}
		if m.CognitiveLoad.WarningThreshold > 0 {
			f.meta.CognitiveLoad.WarningThreshold = m.CognitiveLoad.WarningThreshold
		}
		f.meta.CurrentStrategy = m.CurrentStrategy
	}
	return f
}

// apply folds one entry in.
func (f *fold) apply(e Entry) {
	f.last = e.Timestamp
	op := e.Operation
	switch op.Type {
	case OpToolCall:
		if strings.HasSuffix(op.Name, StartSuffix) {
			return
		}
		f.toolResult(e)
	case OpCognitiveState:
		var in CognitiveInput
		if json.Unmarshal(op.Input, &in) != nil {
			return
		}
		for _, h := range in.Hazards {
			f.emo.feel(Fear, h.Trigger, h.Mitigation, severityIntensity(h.Severity), in.Call.Paths, e.Timestamp)
			f.emo.shift(5, 0, false)
		}
		f.triggersForHazards(e, in.Call, in.Hazards)
	case OpSystemEvent:
		f.systemEvent(e)
	}
}

func (f *fold) toolResult(e Entry) {
	op := e.Operation
	sig := ActionSignature(op.Name, op.Input)
	progress := op.Success && len(e.Metadata.FilesTouched) > 0
	prevFailures := f.meta.HelpSeeking.ConsecutiveFailures
	f.meta.observe(sig, op.Success, progress)
	ts := e.Timestamp
	if op.Success {
		f.emo.shift(-2, 5, false)
		if progress {
			f.emo.feel(Satisfaction, op.Name+" "+strings.Join(e.Metadata.FilesTouched, ", "), "tool call succeeded", 4, e.Metadata.FilesTouched, ts)
		}
		if prevFailures > 0 {
			f.emo.feel(Relief, "recovered after "+sig, "success after failures", float64(min(10, 3+prevFailures)), nil, ts)
		}
	} else {
		f.emo.shift(8, -5, f.meta.NeedsHelp())
		f.emo.feel(Frustration, sig+" failed", op.Error, float64(min(10, 2+f.meta.HelpSeeking.ConsecutiveFailures)), nil, ts)
		if contains(e.Metadata.Tags, TagBlocked) {
			f.emo.feel(Caution, "blocked: "+sig, op.Error, 5, nil, ts)
		}
	}
	if f.meta.Spinning() {
		f.emo.feel(Frustration, "spinning on "+sig, "similar actions without progress", 8, nil, ts)
		f.emo.shift(5, -5, true)
	}
	f.triggersAfterTool(e, sig, op.Success, progress)
}

func (f *fold) systemEvent(e Entry) {
	op := e.Operation
	switch op.Name {
	case EventStateSet:
		var s StateEntry
		if json.Unmarshal(op.Input, &s) == nil && s.Section != "" && s.Key != "" {
			if s.UpdatedAt == "" {
				s.UpdatedAt = e.Timestamp
			}
			f.state.Set(s)
		}
	case EventStrategySet:
		var s struct {
			Strategy string `json:"strategy"`
		}
		if json.Unmarshal(op.Input, &s) == nil {
			f.meta.CurrentStrategy = s.Strategy
		}
	case EventEpistemicAdd:
		var it EpistemicItem
		if json.Unmarshal(op.Input, &it) == nil && it.ID != "" {
			if it.UpdatedAt == "" {
				it.UpdatedAt = e.Timestamp
			}
			f.epi.Add(it)
		}
	case EventSelfCorrection:
		var sc SelfCorrection
		if json.Unmarshal(op.Input, &sc) == nil {
			sc.Timestamp = e.Timestamp
			f.meta.SelfCorrections = append(f.meta.SelfCorrections, sc)
		}
	}
}

func severityIntensity(s string) float64 {
	switch strings.ToLower(s) {
	case "critical":
		return 9
	case "high":
		return 7
	case "low":
		return 3
	}
	return 5
}

// snapshot is the cognitive export of the fold at time at.
func (f *fold) snapshot(hazards []HazardMatch, at string) Snapshot {
	return Snapshot{Strategy: f.meta.CurrentStrategy, ProgressStatus: f.meta.ProgressStatus, CognitiveLoad: f.meta.CognitiveLoad.Current,
		Anxiety: f.emo.Session.AnxietyLevel, Confidence: f.emo.Session.ConfidenceLevel, Hazards: hazards, At: at}
}
