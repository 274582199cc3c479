package events

import (
	"fmt"

	"github.com/codali-dev/codali/pkg/afs"
	"github.com/codali-dev/codali/pkg/cognition"
)

// StopSpinning is BuildCognition.Stopped when the builder ended an attempt
// because its model kept repeating similar actions without progress after
// being told so.
const StopSpinning = "spinning"

// BuildCognition is the builder's Cognitive Protocol v0.3 record of one
// attempt. Its entries are the attempt's .context/ history lines
// (cognitive_state snapshots, "<tool>:start" and "<tool>" results,
// thought_trace, system events); the attempt's .context/ files are a
// projection of them (pkg/afs), so the audit history holds everything
// needed to rebuild them.
type BuildCognition struct {
	// Entries are the history entries, in order.
	Entries []afs.Entry `json:"entries"`
	// Stopped says why the attempt ended early ("spinning"), or is empty.
	Stopped string `json:"stopped,omitempty"`
	// StopDetail explains an early stop.
	StopDetail string `json:"stop_detail,omitempty"`
	// HelpSeeking is set when consecutive failures reached the
	// help-seeking threshold during the attempt.
	HelpSeeking bool `json:"help_seeking,omitempty"`
	// MaxConsecutiveFailures is the longest run of failed tool calls.
	MaxConsecutiveFailures int `json:"max_consecutive_failures,omitempty"`
	// Heuristics are the build-mode behaviours the emotions called for at
	// the end of the attempt.
	Heuristics afs.Heuristics `json:"heuristics"`
	// ContextErrors lists problems reading the repository's .context/.
	ContextErrors []string `json:"context_errors,omitempty"`
}

// EarlyStop is the critic's failure reason for an attempt the builder
// ended early, or "" when it did not.
func (d BuiltData) EarlyStop() string {
	if d.Cognition == nil || d.Cognition.Stopped == "" {
		return ""
	}
	if d.Cognition.StopDetail != "" {
		return fmt.Sprintf("the builder stopped early (%s): %s", d.Cognition.Stopped, d.Cognition.StopDetail)
	}
	return "the builder stopped early (" + d.Cognition.Stopped + ")"
}

// CognitionWarnings are the verdict warnings the builder's metacognition
// raised: help-seeking.
func (d BuiltData) CognitionWarnings() []string {
	if d.Cognition == nil || !d.Cognition.HelpSeeking {
		return nil
	}
	return []string{fmt.Sprintf("help-seeking: the builder had %d consecutive failed tool calls (threshold %d)",
		d.Cognition.MaxConsecutiveFailures, afs.DefaultFailureThreshold)}
}

// GateStageProtocol: the Cognitive Protocol's file policy table refused the
// call (a write into a read-only, system-append or executable-only
// .context/ directory); this counts as a block.
const GateStageProtocol = "protocol"

// CortexReport says what the architect did with the Cortex output IR of
// its model's answer: the acts carried out, the patch ops proposed, and
// every diagnostic (a missing or broken output IR, a discarded section, a
// skipped op, an unknown act). A missing or invalid output IR changes
// nothing.
type CortexReport struct {
	// Found is set when the answer carried an output IR.
	Found bool `json:"found"`
	// Acts are the acts carried out, by name.
	Acts []string `json:"acts,omitempty"`
	// GoalOps and MemoryOps count the proposed patch ops.
	GoalOps   int `json:"goal_ops"`
	MemoryOps int `json:"memory_ops"`
	// Diagnostics explain everything that was not applied.
	Diagnostics []string `json:"diagnostics,omitempty"`
	// State is the project's Cortex state as the plan left it: the state
	// the architect read, with the plan's goal ops and the model's
	// patches applied (one compare-and-set write). The run's .context/
	// goals.json is projected from it, so exporting a run later gives the
	// same files whatever later runs did to the project.
	State *cognition.CognitionState `json:"state,omitempty"`
}
