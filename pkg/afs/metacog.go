package afs

import (
	"encoding/json"
	"math"
	"strings"
)

// Metacognition defaults (clarifications, metacognition shape).
const (
	DefaultSpinningThreshold    = 4
	DefaultLoadWarningThreshold = 0.8
	DefaultFailureThreshold     = 2
	// recentActionsKept bounds spin_detection.recent_actions.
	recentActionsKept = 10
)

// Progress statuses.
const (
	ProgressMaking   = "making_progress"
	ProgressSpinning = "spinning"
	ProgressBlocked  = "blocked"
)

// SpinDetection tracks repeated similar actions.
type SpinDetection struct {
	RecentActions      []string `json:"recent_actions"`
	SimilarActionCount int      `json:"similar_action_count"`
	SpinningThreshold  int      `json:"spinning_threshold"`
}

// CognitiveLoad is the current load in [0, 1] and its warning threshold.
type CognitiveLoad struct {
	Current          float64 `json:"current"`
	WarningThreshold float64 `json:"warning_threshold"`
}

// HelpSeeking tracks consecutive failures.
type HelpSeeking struct {
	ConsecutiveFailures int `json:"consecutive_failures"`
	FailureThreshold    int `json:"failure_threshold"`
}

// SelfCorrection records a change of course.
type SelfCorrection struct {
	Timestamp  string `json:"timestamp"`
	Reason     string `json:"reason"`
	Correction string `json:"correction"`
}

// Metacognition is scratchpad/metacognition.json.
type Metacognition struct {
	Meta
	CurrentStrategy string           `json:"current_strategy"`
	ProgressStatus  string           `json:"progress_status"`
	SpinDetection   SpinDetection    `json:"spin_detection"`
	CognitiveLoad   CognitiveLoad    `json:"cognitive_load"`
	HelpSeeking     HelpSeeking      `json:"help_seeking"`
	SelfCorrections []SelfCorrection `json:"self_corrections"`
}

// NewMetacognition returns the initial metacognition with the protocol's
// default thresholds.
func NewMetacognition() Metacognition {
	return Metacognition{
		ProgressStatus:  ProgressMaking,
		SpinDetection:   SpinDetection{RecentActions: []string{}, SpinningThreshold: DefaultSpinningThreshold},
		CognitiveLoad:   CognitiveLoad{WarningThreshold: DefaultLoadWarningThreshold},
		HelpSeeking:     HelpSeeking{FailureThreshold: DefaultFailureThreshold},
		SelfCorrections: []SelfCorrection{},
	}
}

// Spinning reports whether similar actions reached the threshold.
func (m Metacognition) Spinning() bool {
	return m.SpinDetection.SimilarActionCount >= m.spinThreshold()
}

// NeedsHelp reports whether consecutive failures reached the threshold.
func (m Metacognition) NeedsHelp() bool {
	return m.HelpSeeking.ConsecutiveFailures >= m.failThreshold()
}

// Overloaded reports whether the load reached its warning threshold.
func (m Metacognition) Overloaded() bool {
	w := m.CognitiveLoad.WarningThreshold
	if w <= 0 {
		w = DefaultLoadWarningThreshold
	}
	return m.CognitiveLoad.Current >= w
}

func (m Metacognition) spinThreshold() int {
	if m.SpinDetection.SpinningThreshold <= 0 {
		return DefaultSpinningThreshold
	}
	return m.SpinDetection.SpinningThreshold
}

func (m Metacognition) failThreshold() int {
	if m.HelpSeeking.FailureThreshold <= 0 {
		return DefaultFailureThreshold
	}
	return m.HelpSeeking.FailureThreshold
}

// observe folds one finished action into the metacognition. An action
// makes progress when it succeeds and touches files; the similar-action
// count is the number of trailing actions with the same signature since
// the last progress.
func (m *Metacognition) observe(signature string, success, progress bool) {
	sd := &m.SpinDetection
	last := ""
	if n := len(sd.RecentActions); n > 0 {
		last = sd.RecentActions[n-1]
	}
	sd.RecentActions = append(sd.RecentActions, signature)
	if len(sd.RecentActions) > recentActionsKept {
		sd.RecentActions = sd.RecentActions[len(sd.RecentActions)-recentActionsKept:]
	}
	switch {
	case progress:
		sd.SimilarActionCount = 0
	case signature == last && sd.SimilarActionCount > 0:
		sd.SimilarActionCount++
	default:
		sd.SimilarActionCount = 1
	}
	if success {
		m.HelpSeeking.ConsecutiveFailures = 0
	} else {
		m.HelpSeeking.ConsecutiveFailures++
	}
	m.updateStatus()
}

// updateStatus recomputes the load and progress status. Load is 0.2 per
// consecutive failure plus 0.15 per repeated similar action, capped at 1.
func (m *Metacognition) updateStatus() {
	repeats := max(0, m.SpinDetection.SimilarActionCount-1)
	load := 0.2*float64(m.HelpSeeking.ConsecutiveFailures) + 0.15*float64(repeats)
	m.CognitiveLoad.Current = math.Min(1, math.Round(load*100)/100)
	switch {
	case m.Spinning():
		m.ProgressStatus = ProgressSpinning
	case m.NeedsHelp():
		m.ProgressStatus = ProgressBlocked
	default:
		m.ProgressStatus = ProgressMaking
	}
}

// ActionSignature is what spin detection compares: the tool and its
// target (the path, the command or the query), or the tool and its whole
// input when it has no recognisable target.
func ActionSignature(tool string, input json.RawMessage) string {
	var a map[string]any
	if json.Unmarshal(input, &a) == nil {
		for _, k := range []string{"path", "command", "query"} {
			switch v := a[k].(type) {
			case string:
				if v != "" {
					return tool + ":" + v
				}
			case []any:
				parts := make([]string, 0, len(v))
				for _, p := range v {
					s, _ := p.(string)
					parts = append(parts, s)
				}
				return tool + ":" + strings.Join(parts, " ")
			}
		}
	}
	c, err := json.Marshal(a)
	if err != nil || a == nil {
		return tool + ":" + string(input)
	}
	return tool + ":" + string(c)
}
