// Package runcodex summarises a Codali run's cognitive state as an
// RL4-CODEX payload for each phase handoff: project hash, phase, attempts
// and tool counts as KPIs, actions, touched files as hashed hotspots,
// insights, decisions and integrity. Raw paths never appear: they are
// hashed into identifiers.
package runcodex

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/codali-dev/codali/pkg/codex"
)

// Encoder names this package in the payload's OPTIONAL block.
const Encoder = "codali-runcodex.v1"

// Facts are what a phase knows about its run.
type Facts struct {
	RunID      string
	Project    string
	Phase      string
	Attempt    int
	MaxRetries int
	// Steps is the number of plan steps, when a plan exists.
	Steps int
	// Actions are the run's actions so far, oldest first (e.g. context,
	// plan, edit, verify).
	Actions []string
	// Files are the repository paths touched or targeted (hashed).
	Files []string
	// Failures counts failed attempts so far.
	Failures int
	// ToolCalls, Blocked and Warnings count the builder's gated tool calls.
	ToolCalls, Blocked, Warnings int
	// ChecksPassed and ChecksTotal count verification commands.
	ChecksPassed, ChecksTotal int
	// Integrity is green, amber or red once the critic decided; "" before.
	Integrity string
	// PolicyHash is the hex policy hash in force.
	PolicyHash string
}

// Encode builds and validates the payload. It returns an error (wrapping
// codex.ErrInvalidPayload) rather than an invalid payload.
func Encode(f Facts) (string, error) {
	s := codex.State{
		ProjectHash: codex.HashID("proj", f.Project),
		Mode:        "strict",
		Phase:       f.Phase,
		Maturity:    "attempt" + strconv.Itoa(max(f.Attempt, 1)),
		KPIs: []codex.StateKPI{
			{Name: "attempt", Value: strconv.Itoa(max(f.Attempt, 1))},
			{Name: "retries.max", Value: strconv.Itoa(f.MaxRetries)},
			{Name: "tools", Value: strconv.Itoa(f.ToolCalls)},
			{Name: "blocked", Value: strconv.Itoa(f.Blocked)},
			{Name: "checks.passed", Value: strconv.Itoa(f.ChecksPassed)},
			{Name: "checks.total", Value: strconv.Itoa(f.ChecksTotal)},
		},
		Context: codex.StateContext{
			Type:      "coding-run",
			Reasoning: "phased",
			Risk:      risk(f),
		},
		Optional: codex.StateOptional{
			Encoder: Encoder,
			Session: codex.HashID("run", f.RunID),
		},
	}
	if f.Steps > 0 {
		s.Tasks = &codex.StateTasks{Active: f.Steps}
	}
	cycles := max(f.Attempt, 1)
	s.Cycles = &cycles
	s.Actions = append(s.Actions, f.Actions...)
	s.Hotspots = hotspots(f.Files)
	if f.Failures > 0 {
		s.Anomalies = append(s.Anomalies, "verify-failure")
	}
	if f.Blocked > 0 {
		s.Anomalies = append(s.Anomalies, "policy-block")
	}
	if f.Failures > 0 {
		w := float64(f.Failures) / float64(f.MaxRetries+1)
		if w > 1 {
			w = 1
		}
		conf := 1.0
		s.Insights = append(s.Insights, codex.StateInsight{Kind: "pattern", Label: "verify-retry", Weight: &w, Conf: &conf})
		s.Decisions.Adjust = append(s.Decisions.Adjust, "replan-with-feedback")
	}
	if f.Warnings > 0 {
		conf := 1.0
		s.Insights = append(s.Insights, codex.StateInsight{Kind: "trend", Label: "approval-warnings", Conf: &conf})
	}
	switch f.Integrity {
	case "green":
		s.Decisions.Integrity = codex.IntegrityGreen
	case "amber":
		s.Decisions.Integrity = codex.IntegrityAmber
	case "red":
		s.Decisions.Integrity = codex.IntegrityRed
	case "":
	default:
		return "", fmt.Errorf("%w: integrity %q", codex.ErrInvalidPayload, f.Integrity)
	}
	if f.PolicyHash != "" {
		s.Optional.Policy = codex.HashID("pol", f.PolicyHash)
	}
	return codex.Encode(s)
}

func risk(f Facts) string {
	switch {
	case f.Blocked > 0 || f.Failures >= f.MaxRetries && f.Failures > 0:
		return "high"
	case f.Failures > 0 || f.Warnings > 0:
		return "medium"
	default:
		return "low"
	}
}

// hotspots hashes up to eight distinct paths, sorted for determinism.
func hotspots(files []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range files {
		h := codex.HashID("mod", p)
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	sort.Strings(out)
	if len(out) > 8 {
		out = out[:8]
	}
	return out
}
