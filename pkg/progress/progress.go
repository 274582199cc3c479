// Package progress publishes live progress of a phase's work — tool calls
// as they run, check output lines, streamed model output — on core NATS
// subjects codali.progress.<run_id>.<phase>. Progress is not stored (the
// run event stream captures codali.run.> only) and is fire-and-forget: a
// bounded buffer between the phase and the connection drops messages
// rather than slowing the phase, and every message carries a sequence
// number so a reader can tell that some were dropped.
package progress

import (
	"strings"
	"time"
)

// SubjectPrefix starts every progress subject.
const SubjectPrefix = "codali.progress"

// Subject is the progress subject of a run's phase.
func Subject(runID, phase string) string { return SubjectPrefix + "." + runID + "." + phase }

// RunSubjects matches every progress subject of a run.
func RunSubjects(runID string) string { return SubjectPrefix + "." + runID + ".>" }

// Message types.
const (
	TypePhaseStart = "phase.start"
	TypePhaseEnd   = "phase.end"
	TypeStart      = "activity.start"
	TypeOutput     = "activity.output"
	TypeEnd        = "activity.end"
)

// Message is one progress message (JSON on the wire).
type Message struct {
	RunID   string `json:"run_id"`
	Phase   string `json:"phase"`
	Attempt int    `json:"attempt"`
	// Handling identifies the phase's handling (the event it handles), so
	// that a redelivered event's progress is told apart.
	Handling string `json:"handling"`
	// Seq numbers the messages of one handling from 1; a gap means
	// messages were dropped.
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
	Type string    `json:"type"`
	// Activity is the kind of activity (tool, check, model) for the
	// activity.* types.
	Activity string `json:"activity,omitempty"`
	// Name is the tool, check or model.
	Name string `json:"name,omitempty"`
	// Detail describes the activity (redacted).
	Detail string `json:"detail,omitempty"`
	// Step is the builder's step.
	Step int `json:"step,omitempty"`
	// Text is a line of output or a piece of streamed model output
	// (redacted).
	Text string `json:"text,omitempty"`
	// OK and Error say how an activity or phase ended.
	OK    *bool  `json:"ok,omitempty"`
	Error string `json:"error,omitempty"`
}

// maxText bounds the text of one message.
const maxText = 4096

func clip(s string) string {
	if len(s) <= maxText {
		return s
	}
	return strings.ToValidUTF8(s[:maxText], "") + "…"
}
