package afs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// PathTriggers is scratchpad/analysis-triggers.json: the pending and
// automatic analysis triggers (protocol §2).
const PathTriggers = "scratchpad/analysis-triggers.json"

// Analysis trigger kinds: what raised a trigger.
const (
	// TriggerSpinning: similar actions without progress reached the
	// spinning threshold.
	TriggerSpinning = "spinning"
	// TriggerHelpSeeking: consecutive failures reached the help-seeking
	// threshold.
	TriggerHelpSeeking = "help_seeking"
	// TriggerRepeatedFailure: the same action failed again.
	TriggerRepeatedFailure = "repeated_failure"
	// TriggerHazard: a hazard playbook matched a call.
	TriggerHazard = "hazard_matched"
	// TriggerLowConfidence: confidence fell below LowConfidence.
	TriggerLowConfidence = "low_confidence"
)

// Trigger statuses.
const (
	TriggerPending  = "pending"
	TriggerResolved = "resolved"
)

// Thresholds of the automatic triggers.
const (
	// LowConfidence is the confidence level below which a
	// low_confidence trigger is raised.
	LowConfidence = 30
	// RepeatedFailureAt is how many failures of one action raise a
	// repeated_failure trigger.
	RepeatedFailureAt = 2
)

// AnalysisTrigger is one raised trigger: a situation that calls for an
// analysis (a change of strategy, a review, a human). One trigger per
// kind and subject; raising it again counts and re-opens it.
type AnalysisTrigger struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Subject is what the trigger is about: the action signature, the
	// hazard id, or "" for a session-wide trigger.
	Subject string `json:"subject,omitempty"`
	Reason  string `json:"reason"`
	// Status is pending until the condition clears (resolved).
	Status string `json:"status"`
	Count  int    `json:"count"`
	// SourceEntry is the history entry that last raised it.
	SourceEntry string `json:"source_entry"`
	RaisedAt    string `json:"raised_at"`
	ResolvedAt  string `json:"resolved_at,omitempty"`
	UpdatedAt   string `json:"updated_at"`
}

// AutomaticTrigger is a standing rule that raises triggers.
type AutomaticTrigger struct {
	Kind      string  `json:"kind"`
	Condition string  `json:"condition"`
	Threshold float64 `json:"threshold"`
	// Resolves says when a raised trigger of this kind clears.
	Resolves string `json:"resolves"`
}

// TriggersFile is scratchpad/analysis-triggers.json.
type TriggersFile struct {
	Meta
	// Triggers are the raised triggers, in the order first raised.
	Triggers []AnalysisTrigger `json:"triggers"`
	// Automatic are the rules that raise them.
	Automatic []AutomaticTrigger `json:"automatic"`
}

// Pending returns the triggers still pending.
func (t TriggersFile) Pending() []AnalysisTrigger {
	var out []AnalysisTrigger
	for _, tr := range t.Triggers {
		if tr.Status == TriggerPending {
			out = append(out, tr)
		}
	}
	return out
}

// automaticTriggers are the rules with the metacognition's thresholds.
func automaticTriggers(m Metacognition) []AutomaticTrigger {
	return []AutomaticTrigger{
		{TriggerSpinning, "similar actions without progress", float64(m.spinThreshold()), "a call that makes progress"},
		{TriggerHelpSeeking, "consecutive failed tool calls", float64(m.failThreshold()), "a successful call"},
		{TriggerRepeatedFailure, "failures of the same action", RepeatedFailureAt, "the same action succeeding"},
		{TriggerHazard, "a hazard playbook matches a call", 1, "never: the mitigation stays to review"},
		{TriggerLowConfidence, "confidence below the threshold", LowConfidence, "confidence back at or above the threshold"},
	}
}

// triggers is the fold's trigger state.
type triggers struct {
	byID     map[string]*AnalysisTrigger
	order    []string
	failures map[string]int
}

func newTriggers() triggers {
	return triggers{byID: map[string]*AnalysisTrigger{}, failures: map[string]int{}}
}

// TriggerID is the id of the trigger of a kind and subject.
func TriggerID(kind, subject string) string {
	if subject == "" {
		return kind
	}
	sum := sha256.Sum256([]byte(subject))
	return kind + "-" + hex.EncodeToString(sum[:4])
}

func (t *triggers) raise(kind, subject, reason string, e Entry) {
	id := TriggerID(kind, subject)
	tr, ok := t.byID[id]
	if !ok {
		tr = &AnalysisTrigger{ID: id, Kind: kind, Subject: subject, RaisedAt: e.Timestamp}
		t.byID[id] = tr
		t.order = append(t.order, id)
	}
	tr.Reason, tr.Status, tr.ResolvedAt = reason, TriggerPending, ""
	tr.Count++
	tr.SourceEntry, tr.UpdatedAt = e.ID, e.Timestamp
}

// resolve clears the pending triggers of a kind (of one subject, unless
// any is set).
func (t *triggers) resolve(kind, subject string, any bool, e Entry) {
	for _, id := range t.order {
		tr := t.byID[id]
		if tr.Kind == kind && tr.Status == TriggerPending && (any || tr.Subject == subject) {
			tr.Status, tr.ResolvedAt, tr.UpdatedAt = TriggerResolved, e.Timestamp, e.Timestamp
		}
	}
}

// list returns the triggers in the order first raised.
func (t *triggers) list() []AnalysisTrigger {
	out := make([]AnalysisTrigger, 0, len(t.order))
	for _, id := range t.order {
		out = append(out, *t.byID[id])
	}
	return out
}

// triggersAfterTool raises and resolves triggers for a tool result the
// fold has just taken in.
func (f *fold) triggersAfterTool(e Entry, sig string, success, progress bool) {
	t := &f.trig
	m := f.meta
	if success {
		t.resolve(TriggerHelpSeeking, "", true, e)
		t.resolve(TriggerRepeatedFailure, sig, false, e)
		delete(t.failures, sig)
	} else {
		t.failures[sig]++
		if n := t.failures[sig]; n >= RepeatedFailureAt {
			t.raise(TriggerRepeatedFailure, sig, fmt.Sprintf("%s failed %d times", sig, n), e)
		}
	}
	if progress {
		t.resolve(TriggerSpinning, "", true, e)
	}
	if m.Spinning() {
		t.raise(TriggerSpinning, sig, fmt.Sprintf("%s repeated %d times without progress", sig, m.SpinDetection.SimilarActionCount), e)
	}
	if m.NeedsHelp() {
		t.raise(TriggerHelpSeeking, "", fmt.Sprintf("%d consecutive failed tool calls", m.HelpSeeking.ConsecutiveFailures), e)
	}
	if c := f.emo.Session.ConfidenceLevel; c < LowConfidence {
		t.raise(TriggerLowConfidence, "", fmt.Sprintf("confidence %.0f is below %d", c, LowConfidence), e)
	} else {
		t.resolve(TriggerLowConfidence, "", true, e)
	}
}

// triggersForHazards raises one trigger per matched hazard playbook.
func (f *fold) triggersForHazards(e Entry, call Call, hazards []HazardMatch) {
	for _, h := range hazards {
		f.trig.raise(TriggerHazard, h.ID, fmt.Sprintf("hazard %q matched %s: %s", h.ID, call.Tool, h.Mitigation), e)
	}
}

func triggerKey(t AnalysisTrigger) string     { return t.ID }
func triggerUpdated(t AnalysisTrigger) string { return t.UpdatedAt }
