package afs

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// SessionConfig configures a live session.
type SessionConfig struct {
	// SessionID names the session in every entry, and prefixes entry ids.
	SessionID string
	ProjectID string
	AgentID   string
	ModelID   string
	Producer  Producer
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Thresholds: the base metacognition's thresholds, when set, override
	// the defaults.
	Base Files
}

// Session is the live form of the projection: it records history entries
// as a tool loop runs and folds each into the cognitive state, so its
// signals (spinning, help-seeking) are exactly what Project derives from
// the same entries. A Session is not safe for concurrent use.
type Session struct {
	cfg     SessionConfig
	f       *fold
	entries []Entry
}

// Outcome is the result of one tool execution.
type Outcome struct {
	Success      bool
	Error        string
	Output       string
	DurationMS   int64
	FilesTouched []string
	// Blocked: a gate refused the call.
	Blocked bool
}

// Signals are what the metacognition says after a tool call.
type Signals struct {
	// Spinning: similar actions without progress reached the threshold.
	Spinning bool
	// SimilarActions is the current similar-action count.
	SimilarActions int
	// NeedsHelp: consecutive failures reached the help-seeking threshold.
	NeedsHelp bool
	// ConsecutiveFailures is the current run of failures.
	ConsecutiveFailures int
	// Overloaded: the cognitive load reached its warning threshold.
	Overloaded bool
}

// NewSession starts a session with no entries.
func NewSession(cfg SessionConfig) *Session {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Session{cfg: cfg, f: newFold(cfg.Base)}
}

// ErrResume: recorded entries cannot continue the session.
var ErrResume = errors.New("afs: cannot resume the session")

// ResumeSession continues a session from the entries it recorded before
// (a run parked and resumed): they are folded in, in order, so the
// session's state, metacognition and emotions are those it had, and new
// entries number on. An entry of another session is refused (ErrResume):
// a resumed session never mixes in someone else's history.
func ResumeSession(cfg SessionConfig, entries []Entry) (*Session, error) {
	s := NewSession(cfg)
	for _, e := range entries {
		if e.SessionID != cfg.SessionID {
			return nil, fmt.Errorf("%w: entry %s belongs to session %q, not %q", ErrResume, e.ID, e.SessionID, cfg.SessionID)
		}
		s.f.apply(e)
		s.entries = append(s.entries, e)
	}
	return s, nil
}

// Entries returns a copy of the entries recorded so far.
func (s *Session) Entries() []Entry { return append([]Entry(nil), s.entries...) }

// Metacognition returns the current metacognition.
func (s *Session) Metacognition() Metacognition { return s.f.meta }

// Emotions returns the current emotions (not decayed).
func (s *Session) Emotions() Emotions { return s.f.emo.clone() }

// Record appends an entry of the given operation and folds it in.
func (s *Session) Record(op Operation, md EntryMetadata, parent string) Entry {
	ts := s.cfg.Now().UTC()
	if n := len(s.entries); n > 0 {
		// Keep timestamps monotonic so the history's order is its time order.
		if last, ok := ParseTime(s.entries[n-1].Timestamp); ok && ts.Before(last) {
			ts = last
		}
	}
	e := Entry{ID: fmt.Sprintf("%s#%04d", s.cfg.SessionID, len(s.entries)+1), Timestamp: Timestamp(ts), SessionID: s.cfg.SessionID,
		ProjectID: s.cfg.ProjectID, Operation: op, Provenance: Provenance{AgentID: s.cfg.AgentID, ModelID: s.cfg.ModelID, ParentEntryID: parent},
		Metadata: md}.normalized()
	s.f.apply(e)
	s.entries = append(s.entries, e)
	return e
}

func (s *Session) system(name string, input any) Entry {
	raw, _ := json.Marshal(input)
	return s.Record(Operation{Type: OpSystemEvent, Name: name, Input: raw, Success: true}, EntryMetadata{}, "")
}

// SetState sets one state.json entry.
func (s *Session) SetState(section, key, value string) Entry {
	return s.system(EventStateSet, map[string]string{"section": section, "key": key, "value": value})
}

// SetStrategy sets metacognition's current strategy.
func (s *Session) SetStrategy(strategy string) Entry {
	return s.system(EventStrategySet, map[string]string{"strategy": strategy})
}

// AddEpistemic records an epistemic item; Kind must be one of the Kind*
// constants.
func (s *Session) AddEpistemic(it EpistemicItem) Entry {
	in := map[string]any{"id": it.ID, "kind": it.Kind, "statement": it.Statement, "confidence": it.Confidence}
	if it.Source != "" {
		in["source"] = it.Source
	}
	return s.system(EventEpistemicAdd, in)
}

// SelfCorrect records a change of course.
func (s *Session) SelfCorrect(reason, correction string) Entry {
	return s.system(EventSelfCorrection, map[string]string{"reason": reason, "correction": correction})
}

// Thought records the model's thought as a thought_trace entry.
func (s *Session) Thought(text string) Entry {
	raw, _ := json.Marshal(map[string]string{"thought": text})
	return s.Record(Operation{Type: OpThoughtTrace, Name: "thought", Input: raw, Success: true}, EntryMetadata{}, "")
}

// BeforeTool is the protocol's pre-execution step (§6): given the
// .context/ just read (base), it matches the hazard playbooks against the
// call, records a cognitive_state entry carrying the snapshot, then the
// "<tool>:start" entry. It returns the snapshot (hazard mitigations
// included) and the start entry's id.
func (s *Session) BeforeTool(base Files, call Call, input json.RawMessage) (Snapshot, string) {
	var hazards []HazardMatch
	if base.Hazards != nil {
		hazards = MatchHazards(base.Hazards.Playbooks, call)
	}
	ci := CognitiveInput{Call: call, FilesRead: present(base), Hazards: hazards, Strategy: s.f.meta.CurrentStrategy,
		ProgressStatus: s.f.meta.ProgressStatus, CognitiveLoad: s.f.meta.CognitiveLoad.Current,
		Anxiety: s.f.emo.Session.AnxietyLevel, Confidence: s.f.emo.Session.ConfidenceLevel}
	if ci.Hazards == nil {
		ci.Hazards = []HazardMatch{}
	}
	raw, _ := json.Marshal(ci)
	cs := s.Record(Operation{Type: OpCognitiveState, Name: "snapshot", Input: raw, Success: true}, EntryMetadata{}, "")
	snap := s.f.snapshot(hazards, cs.Timestamp)
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	start := s.Record(Operation{Type: OpToolCall, Name: call.Tool + StartSuffix, Input: input, Success: true}, EntryMetadata{}, cs.ID)
	return snap, start.ID
}

// AfterTool is the post-execution step: it records the "<tool>" entry
// with duration, success and files touched, folds it into metacognition
// and emotions, and returns the resulting signals.
func (s *Session) AfterTool(startID, tool string, input json.RawMessage, o Outcome) Signals {
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	d := o.DurationMS
	md := EntryMetadata{FilesTouched: o.FilesTouched}
	if o.Blocked {
		md.Tags = []string{TagBlocked}
	}
	var out json.RawMessage
	if o.Output != "" {
		out, _ = json.Marshal(o.Output)
	}
	s.Record(Operation{Type: OpToolCall, Name: tool, Input: input, Output: out, DurationMS: &d, Success: o.Success, Error: o.Error}, md, startID)
	sig := s.signals()
	// Informational tags; the fold does not read them.
	last := &s.entries[len(s.entries)-1]
	if sig.Spinning {
		last.Metadata.Tags = append(last.Metadata.Tags, TagSpinning)
	}
	if sig.NeedsHelp {
		last.Metadata.Tags = append(last.Metadata.Tags, TagHelpSeeking)
	}
	return sig
}

func (s *Session) signals() Signals {
	m := s.f.meta
	return Signals{Spinning: m.Spinning(), SimilarActions: m.SpinDetection.SimilarActionCount, NeedsHelp: m.NeedsHelp(),
		ConsecutiveFailures: m.HelpSeeking.ConsecutiveFailures, Overloaded: m.Overloaded()}
}

// StateMD renders state.md for a snapshot: the base state merged with the
// session's, then the snapshot.
func (s *Session) StateMD(base Files, snap Snapshot) string {
	files, _ := Project(ProjectInput{Producer: s.cfg.Producer, Entries: s.entries, Base: base})
	return RenderStateMD(*files.State, &snap)
}

// Files projects the session's entries over the base.
func (s *Session) Files(base Files) (Files, []Conflict) {
	return Project(ProjectInput{Producer: s.cfg.Producer, Entries: s.entries, Base: base})
}

// present lists the canonical files a Files holds.
func present(f Files) []string {
	out := []string{}
	add := func(ok bool, p string) {
		if ok {
			out = append(out, p)
		}
	}
	add(f.State != nil, PathState)
	add(f.Metacognition != nil, PathMetacognition)
	add(f.Goals != nil, PathGoals)
	add(f.Emotions != nil, PathEmotions)
	add(f.Epistemic != nil, PathEpistemic)
	add(f.Hazards != nil, PathHazards)
	for _, n := range sortedKeys(f.Hivemind) {
		out = append(out, DirHivemind+"/"+n)
	}
	return out
}
